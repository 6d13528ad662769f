
service_namearec
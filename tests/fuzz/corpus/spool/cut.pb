€€¨±ãŸçË€È×Ñˆ çË
service_name
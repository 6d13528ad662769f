#define _GNU_SOURCE
#include <time.h>
#include <unistd.h>
#include <stdio.h>
#include <pthread.h>
#include <sys/syscall.h>
__attribute__((noinline)) void do_nanosleep(void){ struct timespec ts={0,20*1000*1000}; nanosleep(&ts,0); }
__attribute__((noinline)) void do_pipe_read(int fd){ char c; read(fd,&c,1); }
__attribute__((noinline)) void spin(long n){ volatile long x=0; for(long i=0;i<n;i++) x+=i; }
int p[2];
void *writer(void*a){ for(int i=0;i<5;i++){ struct timespec ts={0,80*1000*1000}; nanosleep(&ts,0); write(p[1],"x",1);} return 0; }
int main(){ pipe(p); pthread_t t; pthread_create(&t,0,writer,0);
 for(int i=0;i<5;i++){ do_nanosleep(); do_pipe_read(p[0]); }
 pthread_join(t,0);
 spin(300000000L); /* ~cpu time, may be preempted */
 printf("main tid %ld\n", (long)syscall(SYS_gettid)); return 0; }

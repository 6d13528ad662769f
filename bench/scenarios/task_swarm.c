// task_swarm: creates PROCESSES sleeping processes of THREADS tasks each (the leader included),
// prints "ready" once all exist, and tears them all down when it gets SIGTERM or SIGINT.
//   task_swarm PROCESSES THREADS
// bench/compare uses it to measure start-up synthesis with thousands of tasks under /proc.
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void* sleeper(void* unused) {
  (void)unused;
  for (;;) pause();
  return NULL;
}

static void child(int threads, int ready_fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the swarm
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  for (int i = 1; i < threads; ++i) {
    pthread_t t;
    if (pthread_create(&t, &attr, sleeper, NULL) != 0) _exit(1);
  }
  if (write(ready_fd, "r", 1) != 1) _exit(1);
  for (;;) pause();
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: task_swarm PROCESSES THREADS\n");
    return 2;
  }
  int processes = atoi(argv[1]), threads = atoi(argv[2]);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigprocmask(SIG_BLOCK, &stop, NULL);  // children inherit the mask; they die by SIGKILL
  int ready[2];
  if (pipe(ready) != 0) return 1;
  pid_t* pids = calloc((size_t)processes, sizeof *pids);
  for (int i = 0; i < processes; ++i) {
    pids[i] = fork();
    if (pids[i] == 0) child(threads, ready[1]);
    if (pids[i] < 0) { perror("fork"); processes = i; break; }
  }
  char byte;
  for (int i = 0; i < processes; ++i)
    if (read(ready[0], &byte, 1) != 1) return 1;
  printf("ready\n");
  fflush(stdout);
  int signal_number;
  sigwait(&stop, &signal_number);
  for (int i = 0; i < processes; ++i) kill(pids[i], SIGKILL);
  for (int i = 0; i < processes; ++i) waitpid(pids[i], NULL, 0);
  return 0;
}

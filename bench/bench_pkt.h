/* `choke bench pkt`: flow-key extraction and replay throughput. */
#ifndef CHOKE_BENCH_PKT_H
#define CHOKE_BENCH_PKT_H

/* argv[0] is "pkt"; returns the process exit status. */
int choke_bench_pkt_main(int argc, char **argv);

#endif

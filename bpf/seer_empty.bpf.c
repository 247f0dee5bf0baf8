// SPDX-License-Identifier: GPL-2.0
/* An empty uprobe: the baseline bench/ compares seer's sync probe against. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

SEC("uprobe")
int empty_enter(struct pt_regs *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

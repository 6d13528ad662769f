#!/usr/bin/env python3
"""Prototype of arec's --off-cpu matching, run offline on a perf 6.1 recording made with
  perf record -e dummy -e 'software/config=10,name=offcpu-time,freq=1/' \
              -e 'software/config=3,period=1,name=cs-helper/' -g --switch-events -- CMD
Consumes cs-helper samples (context-switches, period 1) and PERF_RECORD_SWITCH(_CPU_WIDE);
for each non-preempt switch-out followed by the same tid's switch-in, writes an offcpu-time
sample right after the IN record: time = t_in, period = t_in - t_out, callchain = USER part.
cs-helper samples are dropped. Usage: synth_offcpu.py IN OUT [--keep-kernel] [--at-out]"""
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
keep_kernel = '--keep-kernel' in sys.argv
at_out = '--at-out' in sys.argv   # experiment: time = t_out instead of t_in
b = bytearray(open(src, 'rb').read())
magic, hsize, attr_size = struct.unpack_from('<QQQ', b, 0)
a_off, a_sz, d_off, d_sz, e_off, e_sz = struct.unpack_from('<6Q', b, 24)
feat = struct.unpack_from('<4Q', b, 72)
S = dict(IP=1, TID=2, TIME=4, ADDR=8, READ=16, CALLCHAIN=32, ID=64, CPU=128, PERIOD=256,
         STREAM_ID=512, RAW=1024, IDENTIFIER=1 << 16)
attrs = []
for i in range(a_sz // attr_size):
    o = a_off + i * attr_size
    typ, asz, config, period, stype, rfmt = struct.unpack_from('<IIQQQQ', b, o)
    ids_off, ids_sz = struct.unpack_from('<QQ', b, o + attr_size - 16)
    ids = struct.unpack_from('<%dQ' % (ids_sz // 8), b, ids_off)
    attrs.append(dict(type=typ, config=config, stype=stype, ids=set(ids)))
id2attr = {i: a for a in attrs for i in a['ids']}
off_attr = next(a for a in attrs if a['type'] == 1 and a['config'] == 10)
cs_attr = next(a for a in attrs if a['type'] == 1 and a['config'] == 3)
off_id = min(off_attr['ids'])
PERF_CONTEXT_USER = (1 << 64) - 512

def trailer(rec, stype):  # sample_id_all trailer, from the end
    fields = []
    for name in ('TID', 'TIME', 'ID', 'STREAM_ID', 'CPU', 'IDENTIFIER'):
        if stype & S[name]: fields.append(name)
    vals = {}; pos = len(rec) - 8 * len(fields)
    for name in fields:
        v = struct.unpack_from('<Q', rec, pos)[0]; pos += 8
        vals[name] = v
    return vals

def parse_sample(rec, stype):
    p = 8; v = {}
    def q():
        nonlocal p; x = struct.unpack_from('<Q', rec, p)[0]; p += 8; return x
    if stype & S['IDENTIFIER']: v['IDENTIFIER'] = q()
    if stype & S['IP']: v['IP'] = q()
    if stype & S['TID']: x = q(); v['PID'], v['TID'] = x & 0xffffffff, x >> 32
    if stype & S['TIME']: v['TIME'] = q()
    if stype & S['ADDR']: q()
    if stype & S['ID']: q()
    if stype & S['STREAM_ID']: q()
    if stype & S['CPU']: v['CPU'] = q() & 0xffffffff
    if stype & S['PERIOD']: v['PERIOD'] = q()
    if stype & S['CALLCHAIN']:
        n = q(); v['CHAIN'] = [q() for _ in range(n)]
    return v

def make_off_sample(pid, tid, t, cpu, period, chain):
    if not keep_kernel:
        if PERF_CONTEXT_USER not in chain: return None   # kernel thread: no user stack (perf skips PF_KTHREAD)
        chain = chain[chain.index(PERF_CONTEXT_USER):]
        if 0 in chain: chain = chain[:chain.index(0)]   # perf's off_cpu_write stops at the first 0 entry
    ip = next((x for x in chain if x < (1 << 64) - 4096), 0)
    st = off_attr['stype']; body = b''
    if st & S['IDENTIFIER']: body += struct.pack('<Q', off_id)
    if st & S['IP']: body += struct.pack('<Q', ip)
    if st & S['TID']: body += struct.pack('<II', pid, tid)
    if st & S['TIME']: body += struct.pack('<Q', t)
    if st & S['ID']: body += struct.pack('<Q', off_id)
    if st & S['CPU']: body += struct.pack('<II', cpu, 0)
    if st & S['PERIOD']: body += struct.pack('<Q', period)
    if st & S['CALLCHAIN']: body += struct.pack('<Q', len(chain)) + struct.pack('<%dQ' % len(chain), *chain)
    misc = 2 if not keep_kernel else 1  # PERF_RECORD_MISC_USER / KERNEL
    return struct.pack('<IHH', 9, misc, 8 + len(body)) + body

# pass 1: records in file order; note switch records and cs-helper samples with their times
recs = []; p = d_off; end = d_off + d_sz; evs = []
while p < end:
    typ, misc, size = struct.unpack_from('<IHH', b, p)
    rec = bytes(b[p:p + size]); p += size; idx = len(recs); recs.append(rec)
    if typ == 9:
        a = id2attr.get(struct.unpack_from('<Q', rec, 8)[0])
        if a is cs_attr:
            v = parse_sample(rec, a['stype'])
            evs.append((v['TIME'], idx, 'S', v['PID'], v['TID'], 0, v['CHAIN'], 0))
    elif typ in (14, 15):
        a = id2attr[struct.unpack_from('<Q', rec, size - 8)[0]]; tr = trailer(rec, a['stype'])
        evs.append((tr['TIME'], idx, 'W', tr['TID'] & 0xffffffff, tr['TID'] >> 32, misc, None,
                    tr.get('CPU', 0) & 0xffffffff))
# file order vs time order, per tid: how often does a tid's IN come before its OUT in the file?
inv = 0; lastw = {}
for t, idx, k, pid, tid, misc, chain, cpu in evs:
    if k == 'W':
        if tid in lastw and lastw[tid] > t: inv += 1
        lastw[tid] = max(lastw.get(tid, 0), t)
stats = dict(blocked=0, preempt=0, dropped_cs=0, emitted=0, in_without_out=0, file_order_inversions=inv)
# pass 2: match in time order (what arec's matcher must do across rings)
last_sample = {}; pending = {}; insert_after = {}
for t, idx, k, pid, tid, misc, chain, cpu in sorted(evs, key=lambda e: (e[0], e[1])):
    if k == 'S':
        last_sample[tid] = chain; continue
    if misc & 0x2000:
        ch = last_sample.pop(tid, None)
        if misc & 0x4000: stats['preempt'] += 1; pending.pop(tid, None); continue
        if ch is not None: pending[tid] = (pid, t, ch)
    else:
        pe = pending.pop(tid, None)
        if pe is None: stats['in_without_out'] += 1; continue
        stats['blocked'] += 1
        smp = make_off_sample(pe[0], tid, pe[1] if at_out else t, cpu, t - pe[1], pe[2])
        if smp: insert_after.setdefault(idx, []).append(smp); stats['emitted'] += 1
out = bytearray()
for idx, rec in enumerate(recs):
    if rec[0] == 9 and id2attr.get(struct.unpack_from('<Q', rec, 8)[0]) is cs_attr:
        stats['dropped_cs'] += 1; continue
    out += rec
    for smp in insert_after.get(idx, []): out += smp
delta = len(out) - d_sz
nb = bytearray(b[:d_off]) + out + b[end:]
struct.pack_into('<QQ', nb, 40, d_off, len(out))
# feature section table follows the data section: shift the sections it points to
nfeat = sum(bin(x).count('1') for x in feat)
for i in range(nfeat):
    o = d_off + len(out) + 16 * i
    fo, fs = struct.unpack_from('<QQ', nb, o)
    struct.pack_into('<QQ', nb, o, fo + delta, fs)
open(dst, 'wb').write(nb)
print(stats, 'still blocked at end:', len(pending), file=sys.stderr)

#!/usr/bin/env python3
"""A board's UART at its own baud rate, on a pseudo-terminal pair (test support).

    uart-pty.py --board-baud N HOST_LINK BOARD_LINK [--banner TEXT --banner-baud M]
    uart-pty.py --transform FROM TO [--ignpar] [--ignbrk] [--split-lines] < bytes > bytes
    uart-pty.py --transform-batch < JSON lines > JSON lines

Bridge mode replaces socat's PTY pair: the code under test opens HOST_LINK as a serial port, a
board script (line-board.mjs, at-board.mjs, ...) opens BOARD_LINK, and this process holds both
masters. A PTY passes bytes whatever its baud rate, but it keeps the rate the host set:
TCGETS/TCGETS2 on the master returns the slave's termios (the kernel's tty_mode_ioctl uses the
linked tty), and rates without a B-constant (250000, 74880) that serialport sets with
termios2/BOTHER come back in c_ospeed. So before each chunk the bridge reads the host's rate and,
when it is not the board's, sends what a UART would receive: the board's bytes as an 8N1 bit
stream at the board's rate (idle 1, start bit 0, 8 data bits LSB first, stop bit 1), sampled at
the host's rate as a UART receiver does it (wait for a falling edge, check the start bit mid-bit,
sample 8 data bits and the stop bit mid-bit; a 0 stop bit is a framing error, which Linux's n_tty
drops under IGNPAR and passes as a NUL otherwise; all-zero data with a 0 stop bit is a break, a
NUL unless IGNBRK). Bytes go out no faster than the board's wire (10 bits a byte), and what the
host writes (AT commands) reaches the board through the same transform the other way.

Until the host has opened the port (its rate is still the sentinel 50 set here) the board's bytes
are dropped: nobody listens on the wire. --banner is what an ESP8266's ROM prints at 74880 when
the host's open resets it, sent once at --banner-baud before the board's own output.

Transform mode runs the same sampler on stdin (one burst, or one burst per line with the line idle
between them with --split-lines), so unit tests get the garbage a real UART gives from this code.
--transform-batch does many at once: each input line {"from", "to", "data" (base64), "ignpar",
"ignbrk", "split_lines"} gives one output line {"data": base64}.
"""
import argparse
import errno
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time
import tty

SENTINEL = 50  # the host's rate before it opens the port: no real board runs at 50 baud

# struct termios2 on Linux: 4 tcflag_t, c_line, c_cc[19], c_ispeed, c_ospeed (44 bytes on x86/arm).
TERMIOS2 = struct.Struct('4I B 19B 2I')
TCGETS2 = (2 << 30) | (TERMIOS2.size << 16) | (ord('T') << 8) | 0x2A

B_RATES = {getattr(termios, n): int(n[1:]) for n in dir(termios) if n.startswith('B') and n[1:].isdigit()}


def line_settings(fd):
    """(baud, iflag) of the tty behind fd (a master reads its slave's)."""
    try:
        raw = fcntl.ioctl(fd, TCGETS2, bytes(TERMIOS2.size))
        fields = TERMIOS2.unpack(raw)
        iflag, ospeed = fields[0], fields[-1]
        if ospeed:
            return ospeed, iflag
    except OSError:
        pass
    a = termios.tcgetattr(fd)
    return B_RATES.get(a[5], 0), a[0]


def transform(data, from_baud, to_baud, iflag=0):
    """What a receiver at to_baud reads from data sent at from_baud as one burst (idle around it)."""
    if from_baud == to_baud or not data:
        return bytes(data)
    bits = []
    for b in data:
        bits.append(0)
        bits.extend((b >> i) & 1 for i in range(8))
        bits.append(1)
    n = len(bits)
    tb = 1.0 / from_baud
    th = 1.0 / to_baud

    def level(t):
        j = int(t / tb + 1e-9)
        return 1 if t < 0 or j >= n else bits[j]

    edges = [j for j in range(n) if bits[j] == 0 and (j == 0 or bits[j - 1] == 1)]
    out = bytearray()
    t = 0.0
    for j in edges:
        e = j * tb
        if e < t:
            continue
        if level(e + 0.5 * th) != 0:  # a glitch shorter than half a bit: no start bit
            t = e + 0.5 * th
            continue
        byte = 0
        for i in range(8):
            byte |= level(e + (1.5 + i) * th) << i
        stop = level(e + 9.5 * th)
        t = e + 9.5 * th  # the receiver hunts for the next start bit from mid-stop
        if stop == 1:
            out.append(byte)
        elif byte == 0:
            if not iflag & termios.IGNBRK:
                out.append(0)
        elif not iflag & termios.IGNPAR:
            out.append(0)
    return bytes(out)


def transform_bursts(data, from_baud, to_baud, iflag, split_lines):
    if split_lines:
        parts = data.split(b'\n')
        chunks = [p + b'\n' for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
    else:
        chunks = [data]
    return b''.join(transform(c, from_baud, to_baud, iflag) for c in chunks)


def iflag_of(ignpar, ignbrk):
    return (termios.IGNPAR if ignpar else 0) | (termios.IGNBRK if ignbrk else 0)


def transform_main(args):
    data = sys.stdin.buffer.read()
    iflag = iflag_of(args.ignpar, args.ignbrk)
    sys.stdout.buffer.write(transform_bursts(data, args.transform[0], args.transform[1], iflag, args.split_lines))


def transform_batch_main():
    import base64
    import json
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        iflag = iflag_of(job.get('ignpar'), job.get('ignbrk'))
        out = transform_bursts(base64.b64decode(job['data']), job['from'], job['to'], iflag, job.get('split_lines'))
        sys.stdout.write(json.dumps({'data': base64.b64encode(out).decode()}) + '\n')


class Wire:
    """One direction of the cable: queued bytes leave at the sender's rate, 10 bits a byte."""

    def __init__(self):
        self.segments = []  # [baud, bytearray]: a banner goes at its own rate
        self.tokens = 0.0
        self.last = time.monotonic()
        self.pending = b''  # transformed, not yet taken by the reader's PTY

    def push(self, baud, data):
        if self.segments and self.segments[-1][0] == baud:
            self.segments[-1][1].extend(data)
        else:
            self.segments.append([baud, bytearray(data)])

    def take(self, now):
        """(baud, bytes) the wire has carried since the last call, or None."""
        dt, self.last = now - self.last, now
        if not self.segments:
            self.tokens = 0.0
            return None
        baud, buf = self.segments[0]
        self.tokens = min(self.tokens + dt * baud / 10.0, max(64.0, baud / 10.0 * 0.02))
        n = min(int(self.tokens), len(buf))
        if n == 0:
            return None
        self.tokens -= n
        chunk = bytes(buf[:n])
        del buf[:n]
        if not buf:
            self.segments.pop(0)
        return baud, chunk

    def wait(self):
        """Seconds until the next byte is due (None when nothing waits)."""
        if not self.segments:
            return None
        baud = self.segments[0][0]
        return max(0.0005, (1 - self.tokens) * 10.0 / baud)


def write_some(fd, wire):
    try:
        n = os.write(fd, wire.pending)
        wire.pending = wire.pending[n:]
    except OSError as err:
        if err.errno not in (errno.EAGAIN, errno.EWOULDBLOCK):
            raise


def bridge_main(args):
    host_m, host_s = os.openpty()
    board_m, board_s = os.openpty()
    for fd in (host_s, board_s):
        tty.setraw(fd)
    a = termios.tcgetattr(host_s)
    a[4] = a[5] = termios.B50
    termios.tcsetattr(host_s, termios.TCSANOW, a)
    for fd in (host_m, board_m):
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    links = [(os.ttyname(host_s), args.host_link), (os.ttyname(board_s), args.board_link)]
    for target, link in links:
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(target, link)

    def bye(*_):
        for _, link in links:
            try:
                os.unlink(link)
            except OSError:
                pass
        os._exit(0)

    signal.signal(signal.SIGTERM, bye)
    signal.signal(signal.SIGINT, bye)
    up, down = Wire(), Wire()  # board -> host, host -> board
    banner = args.banner.encode().decode('unicode_escape').encode('latin-1') if args.banner else b''
    opened = False
    sys.stderr.write(f'uart-pty: board at {args.board_baud} baud; starting data transfer loop\n')
    sys.stderr.flush()
    while True:
        waits = [w for w in (up.wait(), down.wait()) if w is not None]
        wfds = [fd for fd, w in ((host_m, up), (board_m, down)) if w.pending]
        r, w_ready, _ = select.select([host_m, board_m], wfds, [], min(waits) if waits else 0.05)
        host_baud, host_iflag = line_settings(host_m)
        if not opened and host_baud != SENTINEL:
            opened = True
            if banner:
                up.segments.insert(0, [args.banner_baud, bytearray(banner)])
        for fd in r:
            try:
                data = os.read(fd, 65536)
            except OSError as err:
                if err.errno in (errno.EAGAIN, errno.EIO):
                    continue
                raise
            if fd == board_m:
                # Nobody listens on the wire before the host opens the port.
                if opened:
                    up.push(args.board_baud, data)
            else:
                down.push(host_baud, data)
        now = time.monotonic()
        got = up.take(now)
        if got:
            up.pending += transform(got[1], got[0], host_baud, host_iflag)
        got = down.take(now)
        if got:
            _, board_iflag = line_settings(board_m)
            down.pending += transform(got[1], got[0], args.board_baud, board_iflag)
        if up.pending:
            write_some(host_m, up)
        if down.pending:
            write_some(board_m, down)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--transform', nargs=2, type=int, metavar=('FROM', 'TO'))
    p.add_argument('--transform-batch', action='store_true')
    p.add_argument('--ignpar', action='store_true')
    p.add_argument('--ignbrk', action='store_true')
    p.add_argument('--split-lines', action='store_true')
    p.add_argument('--board-baud', type=int)
    p.add_argument('--banner', default='')
    p.add_argument('--banner-baud', type=int, default=74880)
    p.add_argument('host_link', nargs='?')
    p.add_argument('board_link', nargs='?')
    args = p.parse_args()
    if args.transform:
        return transform_main(args)
    if args.transform_batch:
        return transform_batch_main()
    if not (args.board_baud and args.host_link and args.board_link):
        p.error('bridge mode wants --board-baud N HOST_LINK BOARD_LINK')
    bridge_main(args)


if __name__ == '__main__':
    main()

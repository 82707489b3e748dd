/**
 * What a container can tell about its own place on the network, with
 * busybox's output: `hostname` and its -s/-f/-d/-i (read through
 * /etc/hosts, as gethostbyname does: a StatefulSet pod's `hostname -f` is
 * its stable DNS name), and `ip` (addr, route) and `ifconfig`, showing the
 * pod's interfaces as a bridge CNI plugin sets them up: lo, and eth0 with
 * the pod's IP in its node's /24 and the gateway at .1 of it.
 */
import type { Tool, ToolContext } from './containerTools';
import { letterFlags, readFile } from './containerTools';

/** The /etc/hosts entry naming `name` (its address and names, the canonical one first), as gethostbyname finds it. */
function hostsEntries(ctx: ToolContext, name: string): { ip: string; names: string[] }[] {
  const out: { ip: string; names: string[] }[] = [];
  for (const line of (readFile(ctx.files, '/etc/hosts') ?? '').split('\n')) {
    const [ip, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    // IPv4 only: busybox asks for AF_INET.
    if (ip && /^\d+\.\d+\.\d+\.\d+$/.test(ip) && names.includes(name)) out.push({ ip, names });
  }
  return out;
}

export const hostname: Tool = (args, ctx) => {
  const name = ctx.view.hostname;
  const flag = args.find((a) => a.startsWith('-'));
  if (flag === undefined) {
    ctx.out(`${name}\n`);
    return 0;
  }
  if (!/^-[sfdi]$/.test(flag)) {
    ctx.err(`hostname: unrecognized option: ${flag.slice(1)}\n`);
    return 1;
  }
  if (flag === '-s') {
    ctx.out(`${name.split('.')[0]}\n`);
    return 0;
  }
  const entries = hostsEntries(ctx, name);
  if (!entries.length) {
    ctx.err(`hostname: ${name}: Unknown host\n`);
    return 1;
  }
  const canonical = entries[0]!.names[0]!;
  if (flag === '-f') ctx.out(`${canonical}\n`);
  else if (flag === '-d') ctx.out(`${canonical.includes('.') ? canonical.slice(canonical.indexOf('.') + 1) : ''}\n`);
  // busybox writes each address followed by a space.
  else ctx.out(`${entries.map((e) => `${e.ip} `).join('')}\n`);
  return 0;
};

interface Interfaces {
  ip?: string;
  /** The prefix length of eth0's network: the node's /24 of pod addresses, or the nodes' /16 on the host network. */
  prefix: number;
  gateway?: string;
  mac: string;
  /** The host side's interface index, which eth0's name points at (eth0@ifN). */
  peer: number;
}

/** The pod's eth0: its IP, gateway and a MAC made from the IP (as some CNI plugins make them); on the host network, the node's. */
function interfaces(ctx: ToolContext): Interfaces {
  const net = ctx.network;
  const ip = net?.podIP && /^\d+\.\d+\.\d+\.\d+$/.test(net.podIP) ? net.podIP : undefined;
  const octets = (ip ?? '0.0.0.0').split('.').map(Number);
  const mac = ['02', '42', ...octets.map((o) => o.toString(16).padStart(2, '0'))].join(':');
  const prefix = net?.hostNetwork ? 16 : 24;
  const gateway = prefix === 16 ? `${octets.slice(0, 2).join('.')}.0.1` : `${octets.slice(0, 3).join('.')}.1`;
  return { ...(ip ? { ip, gateway } : {}), prefix, mac, peer: 4 + (octets[3] ?? 0) };
}

/** The network address of ip under its prefix (16 or 24). */
const network = (ip: string, prefix: number) => [...ip.split('.').slice(0, prefix / 8), ...Array(4 - prefix / 8).fill('0')].join('.');
const netmask = (prefix: number) => (prefix === 16 ? '255.255.0.0' : '255.255.255.0');

const broadcast = (ip: string, prefix: number) => [...ip.split('.').slice(0, prefix / 8), ...Array(4 - prefix / 8).fill('255')].join('.');

function ipAddr(ctx: ToolContext, i: Interfaces): void {
  ctx.out(
    '1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue qlen 1000\n' +
      '    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n' +
      '    inet 127.0.0.1/8 scope host lo\n' +
      '       valid_lft forever preferred_lft forever\n',
  );
  if (!i.ip) return;
  ctx.out(
    `2: eth0@if${i.peer}: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue \n` +
      `    link/ether ${i.mac} brd ff:ff:ff:ff:ff:ff\n` +
      `    inet ${i.ip}/${i.prefix} brd ${broadcast(i.ip, i.prefix)} scope global eth0\n` +
      '       valid_lft forever preferred_lft forever\n',
  );
}

/** busybox ip: `addr` (`a`, `address`, with `show`) and `route` (`r`); others are not simulated. */
export const ip: Tool = (args, ctx) => {
  const [object = '', verb = 'show'] = args.filter((a) => !a.startsWith('-'));
  const i = interfaces(ctx);
  if (!['show', 'list', 'ls', 'lst'].includes(verb)) {
    ctx.err(`ip: RTNETLINK answers: Operation not permitted\n`);
    return 2;
  }
  if ('address'.startsWith(object) && object) {
    ipAddr(ctx, i);
    return 0;
  }
  if ('route'.startsWith(object) && object) {
    if (i.ip) ctx.out(`default via ${i.gateway} dev eth0 \n${network(i.ip, i.prefix)}/${i.prefix} dev eth0 scope link  src ${i.ip} \n`);
    return 0;
  }
  if ('link'.startsWith(object) && object) {
    ctx.out('1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n');
    if (i.ip) ctx.out(`2: eth0@if${i.peer}: <BROADCAST,MULTICAST,UP,LOWER_UP,M-DOWN> mtu 1500 qdisc noqueue \n    link/ether ${i.mac} brd ff:ff:ff:ff:ff:ff\n`);
    return 0;
  }
  ctx.err(object ? `ip: unknown object '${object}'\n` : 'BusyBox v1.36.1 multi-call binary.\n\nUsage: ip [OPTIONS] address|route|link|tunnel|neigh|rule [ARGS]\n');
  return 1;
};

/** busybox ifconfig: the interfaces that are up, with counters at zero. */
export const ifconfig: Tool = (args, ctx) => {
  if (args.some((a) => !a.startsWith('-') && a !== 'eth0' && a !== 'lo')) {
    ctx.err(`ifconfig: ${args.find((a) => !a.startsWith('-'))}: error fetching interface information: Device not found\n`);
    return 1;
  }
  const i = interfaces(ctx);
  const only = args.find((a) => a === 'eth0' || a === 'lo');
  const counters = '          RX packets:0 errors:0 dropped:0 overruns:0 frame:0\n          TX packets:0 errors:0 dropped:0 overruns:0 carrier:0\n          collisions:0 txqueuelen:1000 \n          RX bytes:0 (0.0 B)  TX bytes:0 (0.0 B)\n\n';
  if (i.ip && only !== 'lo') {
    ctx.out(`eth0      Link encap:Ethernet  HWaddr ${i.mac.toUpperCase()}  \n          inet addr:${i.ip}  Bcast:${broadcast(i.ip, i.prefix)}  Mask:${netmask(i.prefix)}\n          UP BROADCAST RUNNING MULTICAST  MTU:1500  Metric:1\n${counters.replace('txqueuelen:1000', 'txqueuelen:0')}`);
  }
  if (only !== 'eth0') ctx.out(`lo        Link encap:Local Loopback  \n          inet addr:127.0.0.1  Mask:255.0.0.0\n          UP LOOPBACK RUNNING  MTU:65536  Metric:1\n${counters}`);
  return 0;
};

/** A netstat column: the text left-aligned in its width, as busybox's printf("%-*s") pads it. */
const pad = (text: string, width: number) => text.padEnd(width);

/**
 * busybox netstat over the pod's network namespace: the sockets its
 * processes listen on (a debug container started with `--target` shares
 * them), each bound address on its own line (`0.0.0.0` for IPv4, `::` for
 * IPv6; busybox says `tcp` for both). Connections come and go within an
 * instant here, so none is ever established: without -l or -a the table is
 * empty. Ports stay numbers, as without /etc/services (busybox's image has
 * none); -p shows `-`, as for a socket whose process it cannot read.
 */
export const netstat: Tool = (args, ctx) => {
  const parsed = letterFlags(args, 'tulnapwxe', ctx);
  if (!parsed) return 1;
  const { flags, operands } = parsed;
  if (operands.length) {
    ctx.err(`netstat: unrecognized argument: ${operands[0]}\n`);
    return 1;
  }
  const listening = flags.has('l') || flags.has('a');
  const which = flags.has('a') ? 'servers and established' : flags.has('l') ? 'only servers' : 'w/o servers';
  const inet = flags.has('t') || flags.has('u') || flags.has('w') || !flags.has('x');
  const tcp = flags.has('t') || (!flags.has('u') && !flags.has('w') && !flags.has('x'));
  const program = flags.has('p');
  if (inet) {
    ctx.out(`Active Internet connections (${which})\n`);
    ctx.out(`Proto Recv-Q Send-Q Local Address           Foreign Address         State       ${program ? ' PID/Program name' : ''}\n`);
    const net = ctx.network;
    if (tcp && listening && net) {
      for (const l of net.cluster.listenersIn(net.podUID, ctx.now())) {
        for (const address of l.addresses ?? ['0.0.0.0']) {
          const v6 = address.includes(':');
          // busybox joins address and port with a colon, IPv6 too: `:::80`.
          const local = `${address}:${l.port}`;
          const foreign = v6 ? ':::*' : '0.0.0.0:*';
          ctx.out(`tcp        0      0 ${pad(local, 23)} ${pad(foreign, 23)} ${pad('LISTEN', 12)}${program ? ' -' : ''}\n`);
        }
      }
    }
  }
  if (flags.has('x') || (!flags.has('t') && !flags.has('u') && !flags.has('w'))) {
    ctx.out(`Active UNIX domain sockets (${which})\nProto RefCnt Flags       Type       State         I-Node ${program ? 'PID/Program name    ' : ''}Path\n`);
  }
  return 0;
};

/**
 * A metrics registry (k8s.io/component-base/metrics over client_golang) and
 * the Prometheus text exposition format 0.0.4. Plain data, no DOM or node:,
 * so the service worker serves /metrics too. HELP carries the stability
 * class as component-base prefixes it (`[STABLE] ...`).
 */

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

export interface MetricOpts {
  name: string;
  help: string;
  labels?: readonly string[];
  stability?: StabilityLevel;
}

export const textContentType = 'text/plain; version=0.0.4; charset=utf-8';

/** The series of one metric family by label values, in declaration order of the labels. */
abstract class Family<S> {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly string[];
  readonly stability: StabilityLevel;
  protected readonly series = new Map<string, { values: string[]; state: S }>();

  constructor(opts: MetricOpts) {
    this.name = opts.name;
    this.help = opts.help;
    this.labels = opts.labels ?? [];
    this.stability = opts.stability ?? 'ALPHA';
  }

  protected abstract fresh(): S;
  abstract readonly type: 'counter' | 'gauge' | 'histogram';

  protected state(values: readonly string[]): S {
    if (values.length !== this.labels.length) throw new Error(`${this.name}: expected ${this.labels.length} label values, got ${values.length}`);
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) this.series.set(key, (s = { values: [...values], state: this.fresh() }));
    return s.state;
  }

  reset(): void {
    this.series.clear();
  }

  /** Series sorted by label values, as client_golang writes them. */
  protected sorted(): { values: string[]; state: S }[] {
    return [...this.series.values()].sort((a, b) => compareValues(a.values, b.values));
  }

  abstract samples(): string[];

  protected labelText(values: readonly string[], extra?: [string, string]): string {
    const pairs = this.labels.map((l, i) => `${l}="${escapeLabel(values[i]!)}"`);
    if (extra) pairs.push(`${extra[0]}="${escapeLabel(extra[1])}"`);
    return pairs.length ? `{${pairs.join(',')}}` : '';
  }
}

export class Counter extends Family<{ value: number }> {
  readonly type = 'counter';
  protected fresh() {
    return { value: 0 };
  }
  inc(values: readonly string[] = [], by = 1): void {
    this.state(values).value += by;
  }
  get(values: readonly string[] = []): number {
    return this.series.get(values.join('\u0000'))?.state.value ?? 0;
  }
  samples(): string[] {
    return this.sorted().map((s) => `${this.name}${this.labelText(s.values)} ${formatValue(s.state.value)}`);
  }
}

export class Gauge extends Family<{ value: number }> {
  readonly type = 'gauge';
  protected fresh() {
    return { value: 0 };
  }
  set(values: readonly string[], value: number): void {
    this.state(values).value = value;
  }
  add(values: readonly string[], by: number): void {
    this.state(values).value += by;
  }
  samples(): string[] {
    return this.sorted().map((s) => `${this.name}${this.labelText(s.values)} ${formatValue(s.state.value)}`);
  }
}

export class Histogram extends Family<{ counts: number[]; sum: number; count: number }> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  constructor(opts: MetricOpts & { buckets: readonly number[] }) {
    super(opts);
    this.buckets = opts.buckets;
  }
  protected fresh() {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0 };
  }
  observe(values: readonly string[], v: number): void {
    const s = this.state(values);
    // Classic buckets are cumulative upper bounds: v lands in every bucket with le >= v.
    this.buckets.forEach((le, i) => {
      if (v <= le) s.counts[i]! += 1;
    });
    s.sum += v;
    s.count += 1;
  }
  samples(): string[] {
    const out: string[] = [];
    for (const s of this.sorted()) {
      this.buckets.forEach((le, i) => out.push(`${this.name}_bucket${this.labelText(s.values, ['le', formatValue(le)])} ${s.state.counts[i]}`));
      out.push(`${this.name}_bucket${this.labelText(s.values, ['le', '+Inf'])} ${s.state.count}`);
      out.push(`${this.name}_sum${this.labelText(s.values)} ${formatValue(s.state.sum)}`);
      out.push(`${this.name}_count${this.labelText(s.values)} ${s.state.count}`);
    }
    return out;
  }
}

export type Metric = Counter | Gauge | Histogram;

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();
  /** Run before each scrape: gauges read at collection time (storage object counts). */
  private readonly collectors: (() => Promise<void> | void)[] = [];

  register<M extends Metric>(metric: M): M {
    if (this.metrics.has(metric.name)) throw new Error(`duplicate metrics collector registration attempted: ${metric.name}`);
    this.metrics.set(metric.name, metric);
    return metric;
  }

  onCollect(collector: () => Promise<void> | void): void {
    this.collectors.push(collector);
  }

  /** The text exposition: families sorted by name, each with HELP and TYPE, families without series left out. */
  async exposition(filter?: (name: string) => boolean): Promise<string> {
    for (const c of this.collectors) await c();
    const names = [...this.metrics.keys()].filter((n) => !filter || filter(n)).sort();
    let out = '';
    for (const name of names) {
      const m = this.metrics.get(name)!;
      const samples = m.samples();
      if (!samples.length) continue;
      out += `# HELP ${name} ${escapeHelp(`[${m.stability}] ${m.help}`)}\n# TYPE ${name} ${m.type}\n`;
      for (const s of samples) out += `${s}\n`;
    }
    return out;
  }
}

function compareValues(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}

function escapeHelp(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabel(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** A sample value as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it, with Prometheus' spellings of the infinities. */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  const abs = Math.abs(v);
  // 'g' with shortest precision switches to an exponent below 1e-4 and from 1e6 on: 1e-05, 1.234567e+06.
  if (abs !== 0 && (abs < 1e-4 || abs >= 1e6)) {
    const [m, e] = v.toExponential().split('e') as [string, string];
    const sign = e.startsWith('-') ? '-' : '+';
    const digits = e.replace(/^[-+]/, '').padStart(2, '0');
    return `${m}e${sign}${digits}`;
  }
  return String(v);
}

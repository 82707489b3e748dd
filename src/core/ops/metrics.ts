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
  /** The release that deprecated the metric ("1.34.0"): HELP says so, and three minors later it is hidden. */
  deprecatedVersion?: string;
  /** Registered raw (RawMustRegister, cAdvisor's collectors): HELP as written, no stability class. */
  raw?: boolean;
}

export const textContentType = 'text/plain; version=0.0.4; charset=utf-8';

/** The series of one metric family by label values, in declaration order of the labels. */
abstract class Family<S> {
  readonly name: string;
  readonly help: string;
  readonly labels: readonly string[];
  readonly stability: StabilityLevel;
  readonly deprecatedVersion: string | undefined;
  readonly raw: boolean;
  protected readonly series = new Map<string, { values: string[]; state: S }>();

  constructor(opts: MetricOpts) {
    this.name = opts.name;
    this.help = opts.help;
    this.labels = opts.labels ?? [];
    this.stability = opts.stability ?? 'ALPHA';
    this.deprecatedVersion = opts.deprecatedVersion;
    this.raw = opts.raw ?? false;
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
    this.generation++;
  }

  /** Bumped by reset(), so bound series look their state up again. */
  private generation = 0;

  /** The state of one series, looked up once per reset rather than per call (for hot paths that keep their labels). */
  protected bound(values: readonly string[]): () => S {
    let state: S | undefined;
    let generation = -1;
    return () => {
      if (generation !== this.generation) {
        state = this.state(values);
        generation = this.generation;
      }
      return state!;
    };
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

/** A sample's value and, for a const metric with a timestamp (NewLazyMetricWithTimestamp), its time in ms. */
export interface SampleState {
  value: number;
  timestampMs?: number;
}

const timestampText = (s: SampleState) => (s.timestampMs === undefined ? '' : ` ${s.timestampMs}`);

export class Counter extends Family<SampleState> {
  readonly type = 'counter';
  protected fresh(): SampleState {
    return { value: 0 };
  }
  /** A const counter's value as a collector reports it, optionally stamped. */
  set(values: readonly string[], value: number, timestampMs?: number): void {
    Object.assign(this.state(values), { value, timestampMs });
  }
  inc(values: readonly string[] = [], by = 1): void {
    this.state(values).value += by;
  }
  /** inc() on one series, its labels resolved once. */
  bind(values: readonly string[]): (by?: number) => void {
    const state = this.bound(values);
    return (by = 1) => {
      state().value += by;
    };
  }
  get(values: readonly string[] = []): number {
    return this.series.get(values.join('\u0000'))?.state.value ?? 0;
  }
  states(): { values: string[]; state: SampleState }[] {
    return this.sorted();
  }
  samples(): string[] {
    return this.sorted().map((s) => `${this.name}${this.labelText(s.values)} ${formatValue(s.state.value)}${timestampText(s.state)}`);
  }
}

export class Gauge extends Family<SampleState> {
  readonly type = 'gauge';
  protected fresh(): SampleState {
    return { value: 0 };
  }
  set(values: readonly string[], value: number, timestampMs?: number): void {
    Object.assign(this.state(values), { value, timestampMs });
  }
  add(values: readonly string[], by: number): void {
    this.state(values).value += by;
  }
  /** add() on one series, its labels resolved once. */
  bind(values: readonly string[]): (by: number) => void {
    const state = this.bound(values);
    return (by) => {
      state().value += by;
    };
  }
  states(): { values: string[]; state: SampleState }[] {
    return this.sorted();
  }
  samples(): string[] {
    return this.sorted().map((s) => `${this.name}${this.labelText(s.values)} ${formatValue(s.state.value)}${timestampText(s.state)}`);
  }
}

/** client_golang's native histogram settings as component-base sets them: bucket factor 1.1 (schema 3), at most 160 buckets. */
export const nativeInitialSchema = 3;
export const nativeMaxBuckets = 160;
/** DefNativeHistogramZeroThreshold: 2^-128. */
export const nativeZeroThreshold = 2 ** -128;

export interface HistogramState {
  /** Observations per classic bucket: each counted in the first whose upper bound holds it (not cumulative; see cumulativeCounts). */
  counts: number[];
  sum: number;
  count: number;
  /** Native (sparse, exponential) buckets: index -> count, at `schema`. */
  schema: number;
  native: Map<number, number>;
  zeroCount: number;
}

/** The native bucket index of v > 0 at a schema: bucket i holds (base^(i-1), base^i], base = 2^(2^-schema). */
export function nativeBucketIndex(v: number, schema: number): number {
  const scale = schema >= 0 ? 1 << schema : 1 / (1 << -schema);
  const x = Math.log2(v) * scale;
  let i = Math.ceil(x);
  // Correct floating error at the bucket edges; a value clear of an edge needs no check (every request lands here).
  const f = i - x;
  if (f < 1e-9 || f > 1 - 1e-9) {
    if (2 ** ((i - 1) / scale) >= v) i -= 1;
    else if (2 ** (i / scale) < v) i += 1;
  }
  return i;
}

export class Histogram extends Family<HistogramState> {
  readonly type = 'histogram';
  readonly buckets: readonly number[];
  /** Whether native buckets are kept: only a protobuf exposition with the NativeHistograms gate shows them. */
  readonly native: boolean;
  constructor(opts: MetricOpts & { buckets: readonly number[]; native?: boolean }) {
    super(opts);
    this.buckets = opts.buckets;
    this.native = opts.native ?? true;
  }
  protected fresh(): HistogramState {
    return { counts: this.buckets.map(() => 0), sum: 0, count: 0, schema: nativeInitialSchema, native: new Map(), zeroCount: 0 };
  }
  observe(values: readonly string[], v: number): void {
    this.record(this.state(values), v);
  }
  /** observe() on one series, its labels resolved once; `times` observes the same value that many times. */
  bind(values: readonly string[]): (v: number, times?: number) => void {
    const state = this.bound(values);
    return (v, times = 1) => this.record(state(), v, times);
  }
  private readonly lastNative = { v: Number.NaN, schema: 0, i: 0 };
  private record(s: HistogramState, v: number, times = 1): void {
    // Classic buckets are cumulative upper bounds; v is counted once, in the first with le >= v, and
    // the exposition sums them (cumulativeCounts), as client_golang does: every request lands here.
    const buckets = this.buckets;
    for (let i = 0; i < buckets.length; i++) {
      if (v <= buckets[i]!) {
        s.counts[i]! += times;
        break;
      }
    }
    s.sum += v * times;
    s.count += times;
    if (!this.native) return;
    if (Math.abs(v) <= nativeZeroThreshold) s.zeroCount += times;
    else if (v > 0) {
      // Observations often repeat a value (the same event to many watchers): the last index is reused.
      const last = this.lastNative;
      if (last.v !== v || last.schema !== s.schema) {
        last.v = v;
        last.schema = s.schema;
        last.i = nativeBucketIndex(v, s.schema);
      }
      const i = last.i;
      s.native.set(i, (s.native.get(i) ?? 0) + times);
      // Past the bucket limit the resolution halves (schema - 1), merging neighbours, as client_golang does.
      while (s.native.size > nativeMaxBuckets && s.schema > -4) {
        const merged = new Map<number, number>();
        for (const [k, c] of s.native) {
          const j = Math.ceil(k / 2) || 0;
          merged.set(j, (merged.get(j) ?? 0) + c);
        }
        s.native = merged;
        s.schema -= 1;
      }
    }
  }
  /** The classic buckets' cumulative counts (observations with value <= each upper bound). */
  static cumulativeCounts(s: HistogramState): number[] {
    let sum = 0;
    return s.counts.map((c) => (sum += c));
  }
  /** Each series' state, sorted by label values (for the protobuf encoder). */
  states(): { values: string[]; state: HistogramState }[] {
    return this.sorted();
  }
  samples(): string[] {
    const out: string[] = [];
    for (const s of this.sorted()) {
      const counts = Histogram.cumulativeCounts(s.state);
      this.buckets.forEach((le, i) => out.push(`${this.name}_bucket${this.labelText(s.values, ['le', formatValue(le)])} ${counts[i]}`));
      out.push(`${this.name}_bucket${this.labelText(s.values, ['le', '+Inf'])} ${s.state.count}`);
      out.push(`${this.name}_sum${this.labelText(s.values)} ${formatValue(s.state.sum)}`);
      out.push(`${this.name}_count${this.labelText(s.values)} ${s.state.count}`);
    }
    return out;
  }
}

export type Metric = Counter | Gauge | Histogram;

export interface RegistryOptions {
  /** The component's version ("1.36"), against which deprecated metrics are judged. */
  currentVersion?: string;
  /** --show-hidden-metrics-for-version: the previous minor, whose still-visible deprecated metrics stay visible. */
  showHiddenMetricsForVersion?: string;
}

function minorOf(version: string): [number, number] {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return [major, minor];
}

/** Minor releases a deprecated metric stays visible before it is hidden. */
const hideAfterMinors = 3;

/**
 * --show-hidden-metrics-for-version only takes the previous minor version, as
 * component-base validates it; returns the error message or undefined.
 */
export function validateShowHiddenMetricsVersion(value: string, currentVersion: string): string | undefined {
  if (!value) return undefined;
  const [major, minor] = minorOf(currentVersion);
  const expected = `${major}.${minor - 1}`;
  if (!/^\d+\.\d+$/.test(value) || value !== expected) return `--show-hidden-metrics-for-version must be omitted or have the value '${expected}'. Only the previous minor version is allowed`;
  return undefined;
}

export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();
  /** Deprecated metrics past their visible window: observed, never exposed. */
  private readonly hidden = new Set<string>();

  constructor(private readonly options: RegistryOptions = {}) {}

  /** Whether a metric deprecated in `deprecatedVersion` is hidden at `version`. */
  private hiddenAt(deprecatedVersion: string, version: string): boolean {
    const [dMajor, dMinor] = minorOf(deprecatedVersion);
    const [major, minor] = minorOf(version);
    return major > dMajor || minor - dMinor >= hideAfterMinors;
  }

  private isDeprecated(m: Metric): boolean {
    if (!m.deprecatedVersion || !this.options.currentVersion) return false;
    const [dMajor, dMinor] = minorOf(m.deprecatedVersion);
    const [major, minor] = minorOf(this.options.currentVersion);
    return major > dMajor || (major === dMajor && minor >= dMinor);
  }
  /** Run before each scrape: gauges read at collection time (storage object counts). */
  private readonly collectors: (() => Promise<void> | void)[] = [];

  register<M extends Metric>(metric: M): M {
    if (this.metrics.has(metric.name)) throw new Error(`duplicate metrics collector registration attempted: ${metric.name}`);
    this.metrics.set(metric.name, metric);
    const { currentVersion, showHiddenMetricsForVersion } = this.options;
    if (this.isDeprecated(metric) && currentVersion && this.hiddenAt(metric.deprecatedVersion!, currentVersion)) {
      // Shown again only if it was still visible in the version the flag names.
      if (!showHiddenMetricsForVersion || this.hiddenAt(metric.deprecatedVersion!, showHiddenMetricsForVersion)) this.hidden.add(metric.name);
    }
    return metric;
  }

  /** HELP as component-base annotates it: stability class, then the deprecation notice. */
  helpText(m: Metric): string {
    if (m.raw) return m.help;
    return `[${m.stability}] ${this.isDeprecated(m) ? `(Deprecated since ${m.deprecatedVersion}) ` : ''}${m.help}`;
  }

  onCollect(collector: () => Promise<void> | void): void {
    this.collectors.push(collector);
  }

  /** The exposed families sorted by name, after running the collectors (for the protobuf encoder). */
  async gather(): Promise<{ metric: Metric; help: string }[]> {
    for (const c of this.collectors) await c();
    return [...this.metrics.keys()].filter((n) => !this.hidden.has(n)).sort().map((n) => ({ metric: this.metrics.get(n)!, help: this.helpText(this.metrics.get(n)!) }));
  }

  /** The text exposition: families sorted by name, each with HELP and TYPE, families without series left out. */
  async exposition(filter?: (name: string) => boolean): Promise<string> {
    for (const c of this.collectors) await c();
    const names = [...this.metrics.keys()].filter((n) => !this.hidden.has(n) && (!filter || filter(n))).sort();
    let out = '';
    for (const name of names) {
      const m = this.metrics.get(name)!;
      const samples = m.samples();
      if (!samples.length) continue;
      out += `# HELP ${name} ${escapeHelp(this.helpText(m))}\n# TYPE ${name} ${m.type}\n`;
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

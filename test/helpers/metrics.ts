import { TEST_API_KEY, type TestGateway } from './gateway.js';
import { until, show } from './phones.js';

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

/** A scrape of GET /metrics, parsed (and checked) as the Prometheus text format 0.0.4. */
export interface Metrics {
  types: Map<string, MetricType>;
  help: Map<string, string>;
  /** Sample values by series: the name, then its labels sorted by name (`name{a="1",b="2"}`). */
  samples: Map<string, number>;
  /** The value of one series; throws when the scrape does not have it. */
  value(name: string, labels?: Record<string, string>): number;
  /** The gateway's own series, for failure messages. */
  toJSON(): Record<string, number>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A sample value as Prometheus reads it (Go's ParseFloat): Inf and NaN in any case, as prom-client writes `Nan`. */
function parseValue(text: string): number | undefined {
  if (NUMBER.test(text)) return Number(text);
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (!special) return undefined;
  if (special[2]!.toLowerCase() === 'nan') return NaN;
  return special[1] === '-' ? -Infinity : Infinity;
}

export const seriesKey = (name: string, labels: Record<string, string> = {}): string => {
  const keys = Object.keys(labels).sort();
  return keys.length === 0 ? name : `${name}{${keys.map((k) => `${k}="${labels[k]}"`).join(',')}}`;
};

/** The family a sample belongs to: histogram and summary samples carry a suffix. */
function familyOf(name: string, types: Map<string, MetricType>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && (types.get(base) === 'histogram' || types.get(base) === 'summary')) return base;
  }
  return undefined;
}

/** Parses the text format line by line; any line that is not HELP, TYPE, a comment or a valid sample fails. */
export function parseMetrics(text: string): Metrics {
  const types = new Map<string, MetricType>();
  const help = new Map<string, string>();
  const samples = new Map<string, number>();
  const fail = (n: number, line: string, why: string): never => {
    throw new Error(`line ${n + 1} of the exposition: ${why}: ${JSON.stringify(line)}`);
  };
  text.split('\n').forEach((line, n) => {
    if (line === '') return;
    const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
    if (meta) {
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (!NAME.test(name)) fail(n, line, 'bad metric name');
      if (kind === 'HELP') help.set(name, rest);
      else if (['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) types.set(name, rest as MetricType);
      else fail(n, line, 'unknown type');
      return;
    }
    if (line.startsWith('#')) return;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: -?\d+)?$/.exec(line);
    if (!m) return fail(n, line, 'not a sample');
    const [, name, labelText, value] = m as unknown as [string, string, string | undefined, string];
    const parsed = parseValue(value);
    if (parsed === undefined) return fail(n, line, 'bad value');
    const labels: Record<string, string> = {};
    if (labelText) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < labelText.length) {
        const at = LABEL.lastIndex;
        const l = LABEL.exec(labelText);
        if (!l || l.index !== at) return fail(n, line, 'bad labels');
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      }
    }
    if (familyOf(name, types) === undefined) fail(n, line, 'sample without a TYPE line before it');
    const key = seriesKey(name, labels);
    if (samples.has(key)) fail(n, line, 'series repeated');
    samples.set(key, parsed);
  });
  return {
    types,
    help,
    samples,
    value(name, labels) {
      const key = seriesKey(name, labels);
      const v = samples.get(key);
      if (v === undefined) throw new Error(`no series ${key} in the scrape`);
      return v;
    },
    toJSON: () => Object.fromEntries([...samples].filter(([key]) => key.startsWith('voice_gateway_') && !key.includes('_bucket'))),
  };
}

/** GET /metrics with an API key (or the given credential headers), parsed. */
export async function scrape(gateway: TestGateway, headers: Record<string, string> = { authorization: `Bearer ${TEST_API_KEY}` }): Promise<Metrics> {
  const res = await gateway.api('GET', '/metrics', undefined, { key: null, headers });
  if (res.status !== 200) throw new Error(`GET /metrics: ${show(res)}`);
  return parseMetrics(res.text);
}

/** Scrapes until `done` holds for a scrape (values move as the gateway works); returns that scrape. */
export function scrapeUntil(gateway: TestGateway, done: (m: Metrics) => boolean, what: string, timeoutMs = 5000): Promise<Metrics> {
  return until(() => scrape(gateway), done, { what, timeoutMs });
}

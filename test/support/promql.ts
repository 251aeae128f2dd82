// The metric names a PromQL expression reads, and the ones a /metrics page serves, so the
// tests can hold alert rules and dashboard queries to what the controller really exports.
// A reader for the expressions we ship, not a PromQL parser: it drops strings, label
// matchers, ranges and grouping clauses, then takes every identifier that is not a
// function, an aggregation or a keyword.

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'Inf', 'NaN']);

export function metricNamesOf(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w.$])[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const rest = bare.slice(match.index + match[0].length);
    if (/^\s*\(/.test(rest) || KEYWORDS.has(match[0])) continue;
    names.add(match[0]);
  }
  return [...names].sort();
}

/** The names of the series a Prometheus text exposition holds (histograms as their _bucket, _sum, _count). */
export function servedMetricNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const name = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line)?.[1];
    if (name) names.add(name);
  }
  return names;
}

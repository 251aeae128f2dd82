// What an SRE's monitoring reads from the controller: the per-WebService health gauges of a
// real `kubectl webservice run` (series that follow the WebServices, from the leader only),
// the alert rules of deploy/monitoring/alerts.yaml under `promtool test rules`, and every
// metric the rules and the dashboard name, checked against the same run's /metrics.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as yaml from 'js-yaml';
import { ROOT, applyYaml, eventually, kubectl, useNamespace, webService } from '../support/cluster';
import { ControllerProcess } from '../support/controller';
import { metricNamesOf, servedMetricNames } from '../support/promql';
import { promtool } from '../support/tools';

const MONITORING = path.join(ROOT, 'deploy/monitoring');
/** Series Prometheus makes itself for each target, not served by any /metrics. */
const PROMETHEUS_OWN = new Set(['up']);

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const rules = () =>
  (
    yaml.load(fs.readFileSync(path.join(MONITORING, 'alerts.yaml'), 'utf8')) as { groups: { rules: Rule[] }[] }
  ).groups.flatMap((g) => g.rules);

interface Panel {
  title: string;
  targets?: { expr: string }[];
}
const panels = () =>
  (JSON.parse(fs.readFileSync(path.join(MONITORING, 'dashboard.json'), 'utf8')) as { panels: Panel[] }).panels;

async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  if (!res.ok) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

/** The sample lines of one WebService's health series. */
const healthOf = (text: string, ns: string, name: string) =>
  text.split('\n').filter((l) => l.startsWith('webservice_') && l.includes(`namespace="${ns}",name="${name}"`));

function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** A replica of `run --leader-elect` on the namespace, with /metrics on a free port; resolves once it serves. */
async function replica(ns: string): Promise<{ ctl: ControllerProcess; port: number }> {
  const ctl = new ControllerProcess([
    '-n',
    ns,
    '--leader-elect',
    '--leader-elect-namespace',
    ns,
    '--metrics-bind-address',
    '127.0.0.1:0',
  ]);
  const port = Number((await ctl.waitForLog(/serving \/metrics/)).port);
  return { ctl, port };
}

describe('a real run, two replicas electing a leader', () => {
  const ns = useNamespace('monitoring');
  let leader: { ctl: ControllerProcess; port: number };
  let standby: { ctl: ControllerProcess; port: number };

  beforeAll(async () => {
    applyYaml(ns(), webService('web', { image: 'nginx:1.27', replicas: 3 }));
    applyYaml(ns(), webService('gone', { image: 'nginx:1.27' }));
    leader = await replica(ns());
    await leader.ctl.waitForLog(/became leader/);
    standby = await replica(ns());
    await standby.ctl.waitForLog(/caches synced/);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([leader.ctl.stop(), standby.ctl.stop()]);
  });

  it("the leader exports each WebService's conditions, replicas and generations", async () => {
    const text = await eventually(async () => {
      const t = await scrape(leader.port);
      const ready = `webservice_status_condition{namespace="${ns()}",name="web",condition="Ready",status="true"}`;
      return sample(t, ready) === 1 ? t : undefined;
    });
    const web = `namespace="${ns()}",name="web"`;
    expect(sample(text, `webservice_status_condition{${web},condition="Ready",status="false"}`)).toBe(0);
    expect(sample(text, `webservice_status_condition{${web},condition="Ready",status="unknown"}`)).toBe(0);
    expect(sample(text, `webservice_spec_replicas{${web}}`)).toBe(3);
    expect(sample(text, `webservice_status_replicas_ready{${web}}`)).toBe(3);
    const generation = Number(
      kubectl(['get', 'webservice', 'web', '-n', ns(), '-o', 'jsonpath={.metadata.generation}']),
    );
    expect(sample(text, `webservice_metadata_generation{${web}}`)).toBe(generation);
    expect(sample(text, `webservice_status_observed_generation{${web}}`)).toBe(generation);
  });

  it('follows a spec change: the new generation, then the controller observing it', async () => {
    kubectl(['patch', 'webservice', 'web', '-n', ns(), '--type=merge', '-p', '{"spec":{"replicas":4}}']);
    const text = await eventually(async () => {
      const t = await scrape(leader.port);
      const web = `namespace="${ns()}",name="web"`;
      return sample(t, `webservice_status_observed_generation{${web}}`) ===
        sample(t, `webservice_metadata_generation{${web}}`) && sample(t, `webservice_spec_replicas{${web}}`) === 4
        ? t
        : undefined;
    });
    expect(sample(text, `webservice_metadata_generation{namespace="${ns()}",name="web"}`)).toBe(2);
  });

  it('the standby exports no WebService, so the two are never counted twice', async () => {
    const text = await scrape(standby.port);
    expect(sample(text, 'leader_election_master_status{name="webservice"}')).toBe(0);
    expect(text).toContain('# TYPE webservice_status_condition gauge');
    expect(text.split('\n').filter((l) => /^webservice_(status|spec|metadata)_/.test(l))).toEqual([]);
    expect(healthOf(await scrape(leader.port), ns(), 'web').length).toBeGreaterThan(0);
  });

  it("removes a deleted WebService's series", async () => {
    await eventually(async () => (healthOf(await scrape(leader.port), ns(), 'gone').length === 7 ? true : undefined));
    kubectl(['delete', 'webservice', 'gone', '-n', ns()]);
    await eventually(async () => (healthOf(await scrape(leader.port), ns(), 'gone').length === 0 ? true : undefined));
    expect(healthOf(await scrape(leader.port), ns(), 'web').length).toBe(7);
  });

  it('serves every metric the alert rules name (each rule names at least one)', async () => {
    const served = servedMetricNames(await scrape(leader.port));
    for (const rule of rules()) {
      const names = metricNamesOf(rule.expr);
      expect([rule.alert, names.length > 0]).toEqual([rule.alert, true]);
      const missing = names.filter((n) => !served.has(n) && !PROMETHEUS_OWN.has(n));
      expect([rule.alert, missing]).toEqual([rule.alert, []]);
    }
  });

  it("serves every metric the dashboard's queries name (each panel has a query, each query a metric)", async () => {
    const served = servedMetricNames(await scrape(leader.port));
    for (const panel of panels()) {
      expect([panel.title, (panel.targets ?? []).length > 0]).toEqual([panel.title, true]);
      for (const { expr } of panel.targets ?? []) {
        const names = metricNamesOf(expr);
        expect([expr, names.length > 0]).toEqual([expr, true]);
        expect([expr, names.filter((n) => !served.has(n))]).toEqual([expr, []]);
      }
    }
  });
});

describe('the alert rules', () => {
  const ALERTS = path.join(MONITORING, 'alerts.yaml');
  const TESTS = path.join(MONITORING, 'alerts.test.yaml');

  it('pass promtool check rules', () => {
    const result = promtool(['check', 'rules', ALERTS]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`SUCCESS: ${rules().length} rules found`);
    expect(result.status).toBe(0);
  });

  it('pass their unit tests, promtool test rules', () => {
    const result = promtool(['test', 'rules', TESTS]);
    if (result.status !== 0) throw new Error(`promtool test rules failed:\n${result.stdout}${result.stderr}`);
    expect(result.stdout).toContain('SUCCESS');
  });

  it('each has a unit test where it fires and one where it does not, a severity, a summary and a runbook that exists', () => {
    const tests = (
      yaml.load(fs.readFileSync(TESTS, 'utf8')) as {
        tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
      }
    ).tests.flatMap((t) => t.alert_rule_test ?? []);
    const runbooks = fs.readFileSync(path.join(MONITORING, 'README.md'), 'utf8');
    expect(rules().length).toBe(7);
    for (const rule of rules()) {
      const own = tests.filter((t) => t.alertname === rule.alert);
      expect([
        rule.alert,
        own.some((t) => t.exp_alerts.length > 0),
        own.some((t) => t.exp_alerts.length === 0),
      ]).toEqual([rule.alert, true, true]);
      expect(['warning', 'critical']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      const anchor = rule.annotations?.runbook_url.split('#')[1];
      expect(anchor).toBe(rule.alert.toLowerCase());
      expect(runbooks).toContain(`\n### ${rule.alert}\n`);
    }
  });
});

// run's lists are streaming lists (a watch with sendInitialEvents=true; --watch-list, on by
// default), so the apiserver sends objects one event at a time and never one LIST response of
// them all; --watch-list=false lists as before.
import {
  AuditWindow,
  applyYaml,
  eventually,
  fromPlugin,
  tryGetJson,
  useNamespace,
  webService,
} from '../support/cluster';
import { CACHED_KINDS } from '../../src/core/kinds';
import { absentOptionalKinds } from '../support/gateway-api';
import { ControllerProcess } from '../support/controller';

const ns = useNamespace('watch-list');

const isReady = (name: string) =>
  tryGetJson(['get', 'webservice', name, '-n', ns()])?.status?.conditions?.some(
    (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
  ) === true;

it('by default syncs from streaming lists, with no LIST, and reconciles what was there and what comes', async () => {
  applyYaml(ns(), webService('before', { image: 'nginx:1.27' }));
  const audit = new AuditWindow(ns());
  audit.mark();
  const ctl = new ControllerProcess(['-n', ns()]);
  try {
    await ctl.waitForLog(/caches synced/);
    await eventually(() => isReady('before'));
    applyYaml(ns(), webService('after', { image: 'nginx:1.27' }));
    await eventually(() => isReady('after'));
  } finally {
    await ctl.stop();
  }
  expect(ctl.exit).toEqual({ code: 0, signal: null });
  expect(ctl.entries.filter((e) => /does not serve streaming lists/.test(e.msg))).toEqual([]);
  // A watch is in the audit log once it has ended: after the stop.
  const reads = (await audit.pluginRequests()).filter((e) => e.verb === 'list' || e.verb === 'watch');
  const streaming = reads.filter((e) => e.verb === 'watch' && e.requestURI?.includes('sendInitialEvents=true'));
  expect(new Set(streaming.map((e) => e.objectRef?.resource))).toEqual(
    // Every kind the plane serves (an optional kind's API may be absent: it is not watched then).
    new Set([
      'webservices',
      ...CACHED_KINDS.filter((row) => !absentOptionalKinds().includes(row.kind)).map((row) => row.resource),
    ]),
  );
  expect(reads.filter((e) => e.verb === 'list')).toEqual([]);
});

it('with --watch-list=false, lists as before', async () => {
  const audit = new AuditWindow(ns());
  audit.mark();
  const ctl = new ControllerProcess(['-n', ns(), '--watch-list=false']);
  try {
    await ctl.waitForLog(/caches synced/);
    const reads = await audit.pluginRequests();
    expect(reads.filter((e) => fromPlugin(e) && e.requestURI?.includes('sendInitialEvents'))).toEqual([]);
    expect(reads.some((e) => e.verb === 'list' && e.objectRef?.resource === 'webservices')).toBe(true);
  } finally {
    await ctl.stop();
  }
});

// kubectl webservice version's pure parts: the client's fields, the platform in kubectl's names,
// the CRD as check judges it, and the text form.
import { Chalk } from 'chalk';
import { crdReport } from '../../src/check/verdicts';
import { VersionReport, versionLines } from '../../src/commands/version';
import { GIT_COMMIT, PLUGIN_VERSION } from '../../src/core/version';
import { clientVersion, goPlatform } from '../../src/version';

const NAME = 'webservices.apps.labhub.io';
const LABEL = 'webservice.labhub.io/version';
const plain = new Chalk({ level: 0 });
const crd = (labels: Record<string, string>) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: NAME, labels },
  status: { conditions: [{ type: 'Established', status: 'True' }] },
});

describe('clientVersion', () => {
  it('names the plugin, its commit, the Node.js that runs it and the platform', () => {
    expect(clientVersion({ version: 'v24.22.3', platform: 'linux', arch: 'x64' })).toEqual({
      pluginVersion: PLUGIN_VERSION,
      gitCommit: GIT_COMMIT,
      nodeVersion: 'v24.22.3',
      platform: 'linux/amd64',
    });
  });

  it('is "dev" and "unknown" unbundled: only the build knows the version and the commit', () => {
    expect(PLUGIN_VERSION).toBe('dev');
    expect(GIT_COMMIT).toBe('unknown');
  });

  it("defaults to this process's Node.js", () => {
    expect(clientVersion().nodeVersion).toBe(process.version);
  });
});

describe('goPlatform', () => {
  it("says OS/architecture as kubectl does (Go's names)", () => {
    expect(goPlatform('linux', 'x64')).toBe('linux/amd64');
    expect(goPlatform('linux', 'arm64')).toBe('linux/arm64');
    expect(goPlatform('darwin', 'arm64')).toBe('darwin/arm64');
    expect(goPlatform('darwin', 'x64')).toBe('darwin/amd64');
    expect(goPlatform('win32', 'ia32')).toBe('windows/386');
    expect(goPlatform('freebsd', 'riscv64')).toBe('freebsd/riscv64');
  });
});

describe('crdReport', () => {
  const report = (observed: Parameters<typeof crdReport>[1]) => crdReport(NAME, observed, '0.2.0', LABEL);

  it('is ok when the live CRD carries the bundled version, with both versions', () => {
    expect(report({ kind: 'read', crd: crd({ [LABEL]: '0.2.0' }) })).toEqual({
      name: NAME,
      bundledVersion: '0.2.0',
      installedVersion: '0.2.0',
      status: 'ok',
      message: `the CRD ${NAME} is installed, Established, at version 0.2.0`,
    });
  });

  it("gives check's verdict and hint when the CRD is older, newer, unlabelled or missing", () => {
    expect(report({ kind: 'read', crd: crd({ [LABEL]: '0.1.0' }) })).toMatchObject({
      installedVersion: '0.1.0',
      status: 'fail',
      hint: 'upgrade it: kubectl webservice install',
    });
    expect(report({ kind: 'read', crd: crd({ [LABEL]: '1.0.0' }) })).toMatchObject({
      installedVersion: '1.0.0',
      status: 'fail',
      hint: expect.stringContaining('krew upgrade'),
    });
    expect(report({ kind: 'read', crd: crd({}) })).toMatchObject({ installedVersion: null, status: 'fail' });
    expect(report({ kind: 'read', crd: null })).toMatchObject({
      installedVersion: null,
      status: 'fail',
      message: `the CRD ${NAME} is not installed`,
    });
  });

  it('has no installedVersion when the CRD may not be read', () => {
    const forbidden = report({ kind: 'forbidden', served: true, message: 'forbidden' });
    expect(forbidden.status).toBe('warn');
    expect(forbidden).not.toHaveProperty('installedVersion');
  });
});

describe('versionLines', () => {
  const clientVersion = { pluginVersion: '0.2.0', gitCommit: 'abc', nodeVersion: 'v24.22.3', platform: 'linux/amd64' };

  it('prints the client part alone for --client', () => {
    expect(versionLines({ clientVersion }, plain)).toEqual([
      'Plugin Version: 0.2.0',
      'Git Commit: abc',
      'Node.js Version: v24.22.3',
      'Platform: linux/amd64',
    ]);
  });

  it("adds the server's version and the CRD line as check shows it, with its hint when it is not ok", () => {
    const report: VersionReport = {
      clientVersion,
      serverVersion: { major: '1', minor: '36', gitVersion: 'v1.36.3' },
      crd: crdReport(NAME, { kind: 'read', crd: crd({ [LABEL]: '0.1.0' }) }, '0.2.0', LABEL),
    };
    expect(versionLines(report, plain).slice(4)).toEqual([
      'Server Version: v1.36.3',
      `✗ the CRD ${NAME} is at version 0.1.0, older than this plugin (0.2.0)`,
      '    hint: upgrade it: kubectl webservice install',
    ]);
    const current = {
      ...report,
      crd: crdReport(NAME, { kind: 'read', crd: crd({ [LABEL]: '0.2.0' }) }, '0.2.0', LABEL),
    };
    expect(versionLines(current, plain).slice(5)).toEqual([
      `✓ the CRD ${NAME} is installed, Established, at version 0.2.0`,
    ]);
  });
});

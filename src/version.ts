// What `kubectl webservice version` says of the client: the plugin's version and commit (set by
// the bundler, src/core/version.ts), and what it runs on.
import { GIT_COMMIT, PLUGIN_VERSION } from './core/version';

/** `kubectl webservice version`'s clientVersion, as kubectl's names its fields. */
export interface ClientVersion {
  pluginVersion: string;
  gitCommit: string;
  /** The Node.js that runs the plugin: the one on PATH, or the one inside the standalone binary. */
  nodeVersion: string;
  /** OS/architecture in Go's names, like kubectl's: linux/amd64, darwin/arm64. */
  platform: string;
}

export function clientVersion(runtime: Pick<NodeJS.Process, 'version' | 'platform' | 'arch'> = process): ClientVersion {
  return {
    pluginVersion: PLUGIN_VERSION,
    gitCommit: GIT_COMMIT,
    nodeVersion: runtime.version,
    platform: goPlatform(runtime.platform, runtime.arch),
  };
}

// Only the names that differ; arm64, linux, darwin and the rest are the same in both.
const GO_OS: Partial<Record<string, string>> = { win32: 'windows' };
const GO_ARCH: Partial<Record<string, string>> = { x64: 'amd64', ia32: '386' };

/** Node's process.platform and process.arch in the names kubectl prints (GOOS/GOARCH). */
export function goPlatform(platform: string, arch: string): string {
  return `${GO_OS[platform] ?? platform}/${GO_ARCH[arch] ?? arch}`;
}

// The plugin's version and the commit it was built from, set by the bundler (scripts/build.mjs)
// from package.json and git ("dev" and "unknown" when unbundled). Constants of the build, so
// every layer may name them: the client's User-Agent, install's version label, `version`.
declare const BUILD_VERSION: string | undefined;
declare const BUILD_GIT_COMMIT: string | undefined;

export const PLUGIN_VERSION = typeof BUILD_VERSION === 'string' ? BUILD_VERSION : 'dev';
export const GIT_COMMIT = typeof BUILD_GIT_COMMIT === 'string' ? BUILD_GIT_COMMIT : 'unknown';
export const USER_AGENT = `kubectl-webservice/${PLUGIN_VERSION}`;

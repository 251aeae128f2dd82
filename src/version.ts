// The plugin's version, set by the bundler from package.json ("dev" when unbundled).
declare const PLUGIN_VERSION: string | undefined;

export const VERSION = typeof PLUGIN_VERSION === 'string' ? PLUGIN_VERSION : 'dev';
export const USER_AGENT = `kubectl-webservice/${VERSION}`;

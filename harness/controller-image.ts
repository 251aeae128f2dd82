// How the controller image starts node (deploy/Dockerfile), for the bench to start `run` the same
// way; test/integration/deploy.test.ts fails when the Dockerfile says otherwise.

/** The node flags of the image's entrypoint, between node and the plugin. */
export const IMAGE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--optimize-for-size'];

/** The environment the image sets for node. */
export const IMAGE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2' };

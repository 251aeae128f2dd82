// Jest's stand-in for esbuild's text loader: a .yaml module exports its text, as in the bundle.
module.exports = {
  process(source) {
    return { code: `module.exports = ${JSON.stringify(source)};` };
  },
};

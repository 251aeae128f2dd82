// The start of dist/kubectl-webservice. The program follows this code in the same file,
// inside a comment (so node only skims it), and is compiled from there with V8's code
// cache, kept per user. The first run writes the cache as it exits; later runs skip most of
// the parsing and compiling. Anything that goes wrong with the cache only costs that saving,
// never the command. (The build puts 'use strict' and the constants above this.)
// Not module.enableCompileCache (Node 22.1+): it cannot reach the file node was started
// with, and fed the program through Module#_compile it still cost more CPU per start than
// this, since its cache is taken before the command runs, while this one, taken at exit,
// also holds every function the command compiled (the figures: bench/RESULTS.md at f745c9c).
/* global PROGRAM_KEY, COMMENT_END, COMMENT_END_ESCAPED */
(function launch() {
  const fs = require('node:fs');
  const os = require('node:os');
  const path = require('node:path');
  const vm = require('node:vm');

  const PROGRAM = readProgram();

  const dir = cacheDirectory();
  // The key changes with the program's bytes and with the node that runs it.
  const file = dir && path.join(dir, `code-${PROGRAM_KEY}-${process.version}-${process.arch}.bin`);
  let cachedData;
  if (file) {
    try {
      cachedData = fs.readFileSync(file);
    } catch {
      cachedData = undefined;
    }
  }
  const script = new vm.Script(PROGRAM, { filename: __filename, cachedData });
  if (file && (cachedData === undefined || script.cachedDataRejected)) {
    // At exit, the cache also holds every function this command compiled while it ran.
    process.once('exit', () => writeCache(script, dir, file));
  }
  script.runInThisContext()(exports, require, module, __filename, __dirname);

  /** The comment after the marker line, unescaped: a function expression. */
  function readProgram() {
    const file = fs.readFileSync(__filename, 'latin1');
    const marker = '\n/*PROGRAM\n';
    const start = file.lastIndexOf(marker) + marker.length;
    const end = file.lastIndexOf(COMMENT_END);
    return file.slice(start, end).replaceAll(COMMENT_END_ESCAPED, COMMENT_END);
  }

  function cacheDirectory() {
    if (process.env.KUBECTL_WEBSERVICE_NO_CODE_CACHE) return undefined;
    const base = process.env.XDG_CACHE_HOME || (os.homedir() && path.join(os.homedir(), '.cache'));
    return base ? path.join(base, 'kubectl-webservice') : undefined;
  }

  function writeCache(compiled, directory, target) {
    try {
      const data = compiled.createCachedData();
      fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
      const temporary = `${target}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, data, { mode: 0o600 });
      fs.renameSync(temporary, target);
      // Caches of other builds are of no further use. Another node's cache of this build is
      // kept: with two nodes in turn (nvm, a CI matrix), each would delete the other's.
      for (const name of fs.readdirSync(directory)) {
        if (name.startsWith('code-') && !name.startsWith(`code-${PROGRAM_KEY}-`) && !name.endsWith('.tmp')) {
          fs.rmSync(path.join(directory, name), { force: true });
        }
      }
    } catch {
      // A read-only or missing home: run without a cache.
    }
  }
})();

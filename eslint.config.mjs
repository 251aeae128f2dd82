// Typed lint rules: the type-checked recommended set, plus the rules that catch real bugs
// in a reconcile loop (a promise nobody awaits, a condition that cannot be false, a switch
// that misses a new action).
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', '.cache/', 'node_modules/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-unnecessary-condition': [
        'error',
        { allowConstantLoopConditions: 'only-allowed-literals' },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Off: an async function without await is how a fake or a callback meets an async
      // interface; the rule reports style, not a bug.
      '@typescript-eslint/require-await': 'off',
      // Off: the code matches ANSI escapes (\x1b) and NUL on purpose.
      'no-control-regex': 'off',
      // Lazy loads are `await import()`, which type checkers and dead-code tools follow;
      // `import x = require()` stays allowed: it picks yargs' CommonJS build on purpose.
      '@typescript-eslint/no-require-imports': ['error', { allowAsImport: true }],
    },
  },
  {
    // Plain JavaScript (the launcher, build and report scripts, jest helpers) is not in the
    // TypeScript project, so it gets the untyped rules only.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { __filename: 'readonly', __dirname: 'readonly' } },
    // CommonJS files load modules with require(): that is their import.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests and the lab's demo read kubectl's JSON output and check its shape with expect (or
    // the lab check it feeds): a type for each of those documents would only restate the check.
    files: ['test/**/*.ts', 'scripts/lab/demo.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);

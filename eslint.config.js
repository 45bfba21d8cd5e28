// Flat ESLint config: TypeScript-aware rules for src, test, bench; browser globals for ui.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import moduleBoundaries from './scripts/eslint/module-boundaries.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'ui/vendor/', 'release/', 'test/e2e/screenshots/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { netprobe: { rules: { 'module-boundaries': moduleBoundaries } } },
    rules: { 'netprobe/module-boundaries': 'error' },
  },
  {
    // The monitors' storage is used through its index.ts only (test/unit/monitors-storage-boundary.test.ts).
    files: ['src/**/*.ts'],
    ignores: ['src/modules/monitors/storage/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{
        group: ['**/monitors/storage/*', '!**/monitors/storage/index.js', './storage/*', '!./storage/index.js'],
        message: 'Use the storage through monitors/storage/index.ts.',
      }] }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'max-len': ['error', { code: 140, ignoreUrls: true, ignoreRegExpLiterals: true }] },
  },
  { files: ['ui/**/*.js'], languageOptions: { globals: { ...globals.browser } } },
);

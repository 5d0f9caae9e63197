// Lint gate of `npm test`: typescript-eslint's type-checked rules on the TypeScript sources and
// tests, so that a floating or misused promise fails the build instead of a shutdown.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'coverage/', 'node_modules/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // `_name` marks a parameter an interface requires but this implementation does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Plain JavaScript (scripts, bench, examples, bin) is outside the TypeScript project.
    files: ['**/*.{js,mjs,cjs}'],
    extends: [tseslint.configs.disableTypeChecked],
    // Node's globals: no-undef knows none of them without a globals list, and tsc is the better judge.
    rules: { 'no-undef': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
);

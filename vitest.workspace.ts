// One vitest project per app and package (vitest 3 reads this file).
export default ['packages/*/vitest.config.ts', 'apps/*/vitest.config.ts'];

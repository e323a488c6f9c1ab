import { defineConfig } from 'vitest/config';

/**
 * Every test runs on the embedded SQLite database. When VG_POSTGRES_URL names a PostgreSQL server
 * (CI starts one), the suites that exercise the store through a whole gateway run a second time on
 * PostgreSQL, each gateway in a database of its own.
 */
const postgres = process.env.VG_POSTGRES_URL;

export default defineConfig({
  test: {
    // Builds the console when it is missing or stale, for the browser tests.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: ['default'],
    projects: [
      { extends: true as const, test: { name: 'sqlite', include: ['src/**/*.test.ts', 'test/**/*.test.ts'], env: { VG_TEST_DATABASE_URL: '' } } },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: [
                  'test/calls/**/*.test.ts',
                  'test/streams/**/*.test.ts',
                  'test/assistant/**/*.test.ts',
                  'test/platform/settings.test.ts',
                  'test/platform/api-keys.test.ts',
                  'test/platform/metrics.test.ts',
                  'test/platform/input-bounds.test.ts',
                  'test/platform/database-timeouts.test.ts',
                  'test/webhooks/routes.test.ts',
                  'test/webhooks/receivers.test.ts',
                  'test/webhooks/log.test.ts',
                  'test/webhooks/reasons.test.ts',
                  'test/console/accounts.test.ts',
                  'test/console/users.test.ts',
                  'test/console/password-reset.test.ts',
                  'test/store/**/*.test.ts',
                ],
                env: { VG_TEST_DATABASE_URL: postgres },
              },
            },
          ]
        : []),
    ],
  },
});

import type { Migration, MigrationProvider } from 'kysely';
import * as platform from './001-platform.js';
import { calls } from './002-calls.js';
import * as accounts from './003-accounts.js';
import * as assistant from './004-assistant.js';
import { eventsPerDevice } from './005-events-per-device.js';
import { operatorDay } from './006-operator-day.js';
import * as bodiesOnce from './007-bodies-once.js';
import { cluster } from './008-cluster.js';
import * as assistantHeld from './009-assistant-held.js';
import * as deviceDiagnostics from './010-device-diagnostics.js';
import * as assistantTasks from './011-assistant-tasks.js';
import * as removedPhoneNames from './012-removed-phone-names.js';
import * as webhookReasons from './013-webhook-reasons.js';

export type Dialect = 'sqlite' | 'postgres';

/** Versioned migrations, applied in name order at start. Never edit one that has shipped. */
export function migrationProvider(dialect: Dialect): MigrationProvider {
  const migrations: Record<string, Migration> = {
    '001-platform': platform,
    '002-calls': { up: calls(dialect) },
    '003-accounts': accounts,
    '004-assistant': assistant,
    '005-events-per-device': { up: eventsPerDevice(dialect) },
    '006-operator-day': { up: operatorDay(dialect) },
    '007-bodies-once': bodiesOnce,
    '008-cluster': { up: cluster(dialect) },
    '009-assistant-held': assistantHeld,
    '010-device-diagnostics': deviceDiagnostics,
    '011-assistant-tasks': assistantTasks,
    '012-removed-phone-names': removedPhoneNames,
    '013-webhook-reasons': webhookReasons,
  };
  return { getMigrations: () => Promise.resolve(migrations) };
}

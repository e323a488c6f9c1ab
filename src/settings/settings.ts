import { randomBytes } from 'node:crypto';
import type { StreamFormat } from '../codecs/index.js';
import type { Config } from '../config/index.js';
import type { SecretBox, SettingsRepo } from '../store/index.js';

export type SecretSource = 'console' | 'env' | 'generated';
/** Where a plain setting's value comes from: saved through the API or console, the environment, or the gateway's default. */
export type ValueSource = 'console' | 'env' | 'default';

export interface SecretView {
  configured: boolean;
  hint: string | null;
  source: SecretSource | null;
}

export interface SettingsView {
  publicUrl: string | null;
  webhookUrl: string | null;
  docsUrl: string | null;
  incomingStreamUrl: string | null;
  incomingStreamFormat: StreamFormat;
  assistantModel: string | null;
  assistantApiKey: SecretView;
  webhookSecret: SecretView;
  sources: Record<PlainField, ValueSource>;
}

/** A field set to null or "" is cleared and falls back to the environment. */
export interface SettingsPatch {
  publicUrl?: string | null;
  webhookUrl?: string | null;
  docsUrl?: string | null;
  incomingStreamUrl?: string | null;
  incomingStreamFormat?: StreamFormat | '' | null;
  assistantModel?: string | null;
  assistantApiKey?: string | null;
  webhookSecret?: string | null;
}

export interface AgentSettings {
  autoAnswer: boolean;
  ownerName: string;
  about: string;
  voice: string;
}

const PLAIN_FIELDS = ['publicUrl', 'webhookUrl', 'docsUrl', 'incomingStreamUrl', 'incomingStreamFormat', 'assistantModel'] as const;
type PlainField = (typeof PLAIN_FIELDS)[number];
const SECRET_FIELDS = ['assistantApiKey', 'webhookSecret'] as const;
type SecretField = (typeof SECRET_FIELDS)[number];

const GENERATED_WEBHOOK_SECRET = 'generated.webhookSecret';
/** Every stored value sealed with the secret key, and how an operator knows it. */
const SEALED_KEYS: ReadonlyArray<[string, string]> = [
  ['assistantApiKey', 'the assistant key'],
  ['webhookSecret', 'the webhook secret'],
  [GENERATED_WEBHOOK_SECRET, 'the generated webhook secret'],
];
const AGENT_KEY = 'agent';

export const DEFAULT_AGENT_SETTINGS: AgentSettings = { autoAnswer: false, ownerName: '', about: '', voice: 'marin' };

export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The settings of the spec: what the console or API saved, else the environment. Values are cached
 * in memory so hot paths such as webhook signing read no row; several gateways on one database read
 * them again when another node changed them (`reload`, docs/cluster.md).
 */
export class SettingsService {
  private stored = new Map<string, unknown>();
  private readonly listeners = new Set<(view: SettingsView) => void>();
  private saved: (() => void) | undefined;
  /** Bumped by every save, so a reload that raced a save does not put back what the save replaced. */
  private saves = 0;

  private constructor(
    private readonly repo: SettingsRepo,
    private readonly box: SecretBox,
    private readonly config: Config,
  ) {}

  /**
   * Loads the settings and checks that the key opens every sealed one, sealing again with the new key
   * what only SECRET_KEY_PREVIOUS opens; throws SecretKeyError when a stored secret opens with neither.
   * `resealed` counts the values sealed again.
   */
  static async open(repo: SettingsRepo, box: SecretBox, config: Config): Promise<{ settings: SettingsService; resealed: number }> {
    const service = new SettingsService(repo, box, config);
    service.stored = await repo.all();
    const resealed = await service.checkSealed();
    if (!service.stored.has(GENERATED_WEBHOOK_SECRET)) {
      await service.save({ [GENERATED_WEBHOOK_SECRET]: box.seal(newWebhookSecret()) });
    }
    return { settings: service, resealed };
  }

  private async checkSealed(): Promise<number> {
    const resealed: Record<string, string> = {};
    const unreadable: string[] = [];
    for (const [key, name] of SEALED_KEYS) {
      const sealed = this.stored.get(key);
      if (typeof sealed !== 'string') continue;
      const check = this.box.check(sealed);
      if (check.kind === 'reseal') resealed[key] = check.sealed;
      else if (check.kind === 'unreadable') unreadable.push(name);
    }
    if (unreadable.length > 0) throw this.box.mismatch(unreadable);
    await this.save(resealed);
    return Object.keys(resealed).length;
  }

  onChange(listener: (view: SettingsView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Several gateways: told after every change this node makes, so that the others read the settings again. */
  onSaved(saved: () => void): void {
    this.saved = saved;
  }

  private async save(entries: Record<string, unknown>): Promise<void> {
    if (Object.keys(entries).length === 0) return;
    await this.repo.write(entries);
    for (const [key, value] of Object.entries(entries)) {
      if (value === undefined) this.stored.delete(key);
      else this.stored.set(key, value);
    }
    this.saves += 1;
    this.saved?.();
  }

  /** Reads every stored value again (another gateway changed them); listeners hear of a change. */
  async reload(): Promise<void> {
    const saves = this.saves;
    const stored = await this.repo.all();
    if (saves !== this.saves) return;
    const text = (map: Map<string, unknown>) => JSON.stringify([...map].sort(([a], [b]) => (a < b ? -1 : 1)));
    const changed = text(stored) !== text(this.stored);
    this.stored = stored;
    if (changed && this.listeners.size > 0) {
      const view = this.view();
      for (const listener of this.listeners) listener(view);
    }
  }

  private plain(field: PlainField): string | null {
    return this.plainWithSource(field).value;
  }

  private plainWithSource(field: PlainField): { value: string | null; source: ValueSource } {
    const value = this.stored.get(field);
    if (typeof value === 'string' && value !== '') return { value, source: 'console' };
    const env: Record<PlainField, string | undefined> = {
      publicUrl: this.config.publicUrl,
      webhookUrl: this.config.webhookUrl,
      docsUrl: this.config.docsUrl,
      incomingStreamUrl: this.config.incomingStreamUrl,
      incomingStreamFormat: this.config.incomingStreamFormat,
      assistantModel: this.config.assistantModel,
    };
    const fromEnv = env[field];
    return fromEnv ? { value: fromEnv, source: 'env' } : { value: null, source: 'default' };
  }

  private secret(field: SecretField): { value: string; source: SecretSource } | null {
    const sealed = this.stored.get(field);
    if (typeof sealed === 'string') return { value: this.box.open(sealed), source: 'console' };
    const env = field === 'assistantApiKey' ? this.config.assistantApiKey : this.config.webhookSecret;
    if (env) return { value: env, source: 'env' };
    if (field === 'webhookSecret') {
      const generated = this.stored.get(GENERATED_WEBHOOK_SECRET);
      if (typeof generated === 'string') return { value: this.box.open(generated), source: 'generated' };
    }
    return null;
  }

  private secretView(field: SecretField): SecretView {
    const s = this.secret(field);
    return s ? { configured: true, hint: s.value.slice(-4), source: s.source } : { configured: false, hint: null, source: null };
  }

  view(): SettingsView {
    return {
      publicUrl: this.plain('publicUrl'),
      webhookUrl: this.plain('webhookUrl'),
      docsUrl: this.plain('docsUrl'),
      incomingStreamUrl: this.plain('incomingStreamUrl'),
      incomingStreamFormat: (this.plain('incomingStreamFormat') as StreamFormat | null) ?? 'raw',
      assistantModel: this.plain('assistantModel'),
      assistantApiKey: this.secretView('assistantApiKey'),
      webhookSecret: this.secretView('webhookSecret'),
      sources: Object.fromEntries(PLAIN_FIELDS.map((field) => [field, this.plainWithSource(field).source])) as Record<PlainField, ValueSource>,
    };
  }

  async update(patch: SettingsPatch): Promise<SettingsView> {
    const entries: Record<string, unknown> = {};
    for (const field of PLAIN_FIELDS) {
      if (!(field in patch)) continue;
      const value = patch[field];
      entries[field] = value === null || value === '' ? undefined : value;
    }
    for (const field of SECRET_FIELDS) {
      if (!(field in patch)) continue;
      const value = patch[field];
      entries[field] = value === null || value === '' || value === undefined ? undefined : this.box.seal(value);
    }
    await this.save(entries);
    const view = this.view();
    for (const listener of this.listeners) listener(view);
    return view;
  }

  async rotateWebhookSecret(): Promise<string> {
    const secret = newWebhookSecret();
    await this.save({ webhookSecret: this.box.seal(secret) });
    return secret;
  }

  publicUrl(): string | null {
    return this.plain('publicUrl');
  }
  webhookUrl(): string | null {
    return this.plain('webhookUrl');
  }
  incomingStream(): { url: string; format: StreamFormat } | null {
    const url = this.plain('incomingStreamUrl');
    return url ? { url, format: this.view().incomingStreamFormat } : null;
  }
  assistantModel(): string {
    return this.plain('assistantModel') ?? 'gpt-realtime';
  }
  assistantApiKey(): string | null {
    return this.secret('assistantApiKey')?.value ?? null;
  }
  webhookSecret(): string {
    const s = this.secret('webhookSecret');
    if (!s) throw new Error('webhook secret missing');
    return s.value;
  }

  agent(): AgentSettings {
    const stored = this.stored.get(AGENT_KEY);
    return { ...DEFAULT_AGENT_SETTINGS, ...(typeof stored === 'object' && stored !== null ? (stored as Partial<AgentSettings>) : {}) };
  }

  async updateAgent(patch: Partial<AgentSettings>): Promise<AgentSettings> {
    const next = { ...this.agent(), ...patch };
    await this.save({ [AGENT_KEY]: next });
    return next;
  }
}

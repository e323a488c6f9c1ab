import type { Issue } from './api';

/**
 * The console's one place for putting the API's validation issues into sentences. The gateway
 * already words every issue plainly (src/validation-messages.ts: "must be at most 64 characters");
 * here an issue shown under its own field becomes a sentence ("Must be at most 64 characters."),
 * and one shown elsewhere is said with the name of its field ("The number must be …").
 */

/** What people call the fields the API names, where the field's own name would not do. */
const FIELD_NAMES: Record<string, string> = {
  to: 'the number',
  deviceId: 'the phone',
  setupToken: 'the setup token',
  token: 'the link',
  webhookUrl: 'the webhook URL',
  publicUrl: 'the public address',
  docsUrl: 'the documentation URL',
  incomingStreamUrl: 'the incoming stream URL',
  incomingStreamFormat: 'the stream format',
  assistantApiKey: 'the model API key',
  assistantModel: 'the model',
  webhookSecret: 'the webhook secret',
  remoteNumber: 'the number',
  body: 'the request',
};

/** A phrase as a sentence: capital first letter, full stop at the end. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const first = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** `body.webhookUrl` -> "the webhook URL"; `body.stream.url` -> "the URL". */
export function fieldName(path: string): string {
  const last = path.split('.').filter((part) => !/^\d+$/.test(part)).pop() ?? path;
  if (FIELD_NAMES[last]) return FIELD_NAMES[last];
  const words = last
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/\burl\b/g, 'URL')
    .replace(/\bid\b/g, 'ID');
  return `the ${words}`;
}

/** An issue said with its field's name, for a place that is not beside the field. */
export const issueSentence = (issue: Issue): string => sentence(`${fieldName(issue.path)} ${issue.message}`);

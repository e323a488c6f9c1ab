export { SettingsService, type SettingsView, type SecretView, type SettingsPatch, type AgentSettings, type StreamFormat } from './settings.js';

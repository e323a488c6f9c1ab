export { SettingsService, type SettingsView, type SecretView, type SettingsPatch, type AgentSettings } from './settings.js';

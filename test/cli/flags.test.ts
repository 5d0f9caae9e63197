import { describe, expect, it } from '@jest/globals';
import { Command } from 'commander';
import { addSettingOptions, settingFlags } from '../../src/cli/flags.js';

const parsed = (args: string[]): Record<string, unknown> => {
  const cmd = addSettingOptions(new Command('start').exitOverride(), 'start');
  cmd.parse(args, { from: 'user' });
  return settingFlags(cmd.opts(), 'start');
};

describe('setting flags', () => {
  it('should pass --no-autoregister-connectors only when given, so that it does not override the file or the environment', () => {
    expect(parsed([]).autoregisterConnectors).toBeUndefined();
    expect(parsed(['--no-autoregister-connectors']).autoregisterConnectors).toBe(false);
  });

  it('should pass --connector-sync-direction as text, checked by the config loader', () => {
    expect(parsed(['--connector-sync-direction', 'to_persistence']).connectorSyncDirection).toBe('to_persistence');
    expect(parsed([]).connectorSyncDirection).toBeUndefined();
  });
});

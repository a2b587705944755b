import { describe, expect, it } from 'vitest';
import { chromiumArgs, explainSandboxFailure } from '../../../bot/browser.js';
import { botConfigSchema } from '../../../shared/contract/bot-config.js';

describe("the bot's Chromium and its sandbox", () => {
  it('keeps the sandbox and its zygote unless told the container cannot allow them', () => {
    const sandboxed = chromiumArgs({ sandbox: true });
    expect(sandboxed).not.toContain('--no-sandbox');
    expect(sandboxed).not.toContain('--no-zygote');
    expect(chromiumArgs({ sandbox: false })).toEqual(expect.arrayContaining(['--no-sandbox', '--no-zygote']));
    // Everything else is the same either way.
    expect(chromiumArgs({ sandbox: false }).filter((arg) => !sandboxed.includes(arg))).toEqual([
      '--no-sandbox',
      '--no-zygote',
    ]);
  });

  it('runs without the sandbox when the config does not ask for it (a worker from before the sandbox applies no profile)', () => {
    expect(botConfigSchema.shape.browser.parse(undefined).sandbox).toBe(false);
    expect(botConfigSchema.shape.browser.parse({ executablePath: '/usr/bin/chromium' }).sandbox).toBe(false);
    expect(botConfigSchema.shape.browser.parse({ sandbox: true }).sandbox).toBe(true);
  });

  it('turns a sandbox failure into the setting an operator can change, keeping what Chromium said', () => {
    const launch = new Error(
      'browserType.launch: Target page closed\nBrowser logs:\nChromium sandboxing failed!',
    );
    const explained = explainSandboxFailure(launch) as Error;
    expect(explained.message).toContain('BOT_CHROMIUM_SANDBOX=off');
    expect(explained.message).toContain('Chromium sandboxing failed!');
    expect(explained.cause).toBe(launch);

    const other = new Error('browserType.launch: Executable does not exist');
    expect(explainSandboxFailure(other)).toBe(other);
  });
});

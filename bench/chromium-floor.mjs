/**
 * The floor a bot's footprint is compared with: the bot image's Chromium, launched exactly as the
 * bot launches it (same binary, same flags), joins a meeting page and sits in the call, with no
 * audio capture, no recognizer and no bot around it. bench/bot-footprint.ts runs it in a container
 * from the bot image:
 *
 *   node bench/chromium-floor.mjs <meeting url> <google_meet|teams|zoom> [sandbox|no-sandbox]
 *
 * `sandbox` (the default) runs Chromium with its own sandbox, as bots do by default: the container
 * needs the bot seccomp profile then (worker/runtime/bot-seccomp-profile.ts).
 *
 * It prints "in call" once admitted and stays until SIGTERM.
 */
import { launchBrowser } from '../dist/bot/browser.js';
import { GoogleMeetDriver } from '../dist/bot/platforms/google-meet.js';
import { TeamsDriver } from '../dist/bot/platforms/teams.js';
import { ZoomDriver } from '../dist/bot/platforms/zoom.js';
import { botConfigSchema } from '../dist/shared/contract/bot-config.js';
import { createLogger } from '../dist/shared/infra/logger.js';

const [url, platform, sandboxArg = 'sandbox'] = process.argv.slice(2);
const log = createLogger('chromium-floor', 'warn');
const { executablePath, headless } = botConfigSchema.shape.browser.parse(undefined);
const session = await launchBrowser({ executablePath, headless, sandbox: sandboxArg === 'sandbox' }, log);
const drivers = { google_meet: GoogleMeetDriver, teams: TeamsDriver, zoom: ZoomDriver };
if (!(platform in drivers)) throw new Error(`the platform is one of ${Object.keys(drivers).join(', ')}`);
const driver = new drivers[platform](session.page, log);
process.on('SIGTERM', () => {
  session.close().finally(() => process.exit(0));
});

await driver.open(url);
const deadline = Date.now() + 120_000;
for (;;) {
  if (Date.now() > deadline) throw new Error('the floor browser was not admitted within 2 minutes');
  const step = await driver.prepareStep('Floor');
  if (step === null) {
    const { screen } = await driver.observe();
    if (screen.kind === 'in_call') break;
    if (screen.kind === 'dialog') await driver.answerDialog();
  }
  await new Promise((resolve) => setTimeout(resolve, 500));
}
await driver.ensureMuted();
console.log('in call');
setInterval(() => {}, 60_000);

import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botSeccompProfile } from '../../../worker/runtime/bot-seccomp-profile.js';
import {
  BOT_IMAGE,
  type RunOptions,
  type RunResult,
  removeLeftBehind,
  runInBotImage,
} from '../../support/bot-container.js';
import { ensureBotImage } from '../../support/stack.js';

/**
 * Smoke check of the bot image (docker/bot.Dockerfile): built by scripts/build-bot-image.sh (which
 * starts a Docker engine when none runs and rebuilds only what changed), then run the way the worker
 * runs bots: host network, no capabilities, a memory limit, the unprivileged user.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const IMAGE = BOT_IMAGE;
const BUILD_TIMEOUT_MS = 20 * 60_000;
const LABEL = 'bot-image';
const HOW_TO_START =
  'Start the Docker engine with `bash scripts/build-bot-image.sh` (it installs Debian docker.io when ' +
  'absent and runs `dockerd --iptables=false --bridge=none`; needs root), or point DOCKER_HOST at one.';

const docker = new Docker();
const run = (options: Omit<RunOptions, 'label'> = {}): Promise<RunResult> =>
  runInBotImage(docker, { ...options, label: LABEL });

beforeAll(async () => {
  try {
    // Compiles first (a fresh clone has no dist/), then builds what changed.
    await ensureBotImage();
  } catch (error) {
    throw new Error(`${(error as Error).message.split('\n').slice(-25).join('\n')}\n${HOW_TO_START}`);
  }
  try {
    await docker.ping();
  } catch (error) {
    throw new Error(`the Docker engine does not answer (${(error as Error).message}). ${HOW_TO_START}`);
  }
}, BUILD_TIMEOUT_MS + 60_000);

afterAll(async () => {
  // What a failed run may have left behind.
  await removeLeftBehind(docker, LABEL);
});

describe('bot image', () => {
  it('runs as an unprivileged user with node dist/bot/main.js as its entrypoint in /app', async () => {
    const info = await docker.getImage(IMAGE).inspect();
    expect(info.Config.User).toMatch(/^bot(:bot)?$/);
    expect(info.Config.Entrypoint).toEqual(['node', '--max-semi-space-size=1', 'dist/bot/main.js']);
    expect(info.Config.WorkingDir).toBe('/app');

    const ids = await run({ shell: 'id -u; id -g; pwd' });
    expect(ids.exitCode).toBe(0);
    const [uid, gid, cwd] = ids.stdout.trim().split('\n');
    expect(Number(uid)).toBeGreaterThan(0);
    expect(Number(gid)).toBeGreaterThan(0);
    expect(cwd).toBe('/app');
  });

  it('has Node.js 20', async () => {
    const result = await run({ shell: 'node --version' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.trim()).toMatch(/^v20\.\d+\.\d+$/);
  });

  it("has Debian's Chromium, which renders a page headless", async () => {
    const version = await run({ shell: 'chromium --version' });
    expect(version.exitCode, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/Chromium \d+\./);

    // No capabilities and an unprivileged user: Chromium's own sandbox needs user namespaces, which
    // Docker's default seccomp profile denies, so this check runs it without (as bots do with
    // BOT_CHROMIUM_SANDBOX=off; the next test runs it as bots do by default).
    const page = await run({
      shell:
        'chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage ' +
        '--user-data-dir=/tmp/chromium --dump-dom "data:text/html,<p id=probe>bot-image-ok</p>"',
    });
    expect(page.exitCode, page.stderr).toBe(0);
    expect(page.stdout).toContain('bot-image-ok');
  });

  it('launches the headless-only Chromium as the bot does (its flags, its launcher), with a page and 16 kHz audio in one renderer', async () => {
    // What the bot does (bot/browser.ts), under the seccomp profile the worker gives bot containers:
    // Chromium with its own sandbox (test/e2e/docker/chromium-sandbox.test.ts reads its namespaces).
    const script = `
      import { readdirSync, readFileSync } from 'node:fs';
      import { launchBrowser } from './dist/bot/browser.js';
      import { botConfigSchema } from './dist/shared/contract/bot-config.js';
      import { createLogger } from './dist/shared/infra/logger.js';
      const options = { ...botConfigSchema.shape.browser.parse(undefined), sandbox: true };
      const session = await launchBrowser(options, createLogger('probe', 'silent'));
      await session.page.setContent('<p id="probe">bot-image-ok</p>');
      const audio = await session.page.evaluate(async () => {
        const context = new AudioContext({ sampleRate: 16000 });
        await context.resume();
        return context.state + '@' + context.sampleRate;
      });
      const processes = readdirSync('/proc').filter((name) => /^\\d+$/.test(name))
        .map((pid) => { try { return readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' '); } catch { return ''; } })
        .filter((line) => line.startsWith(options.executablePath));
      console.log(JSON.stringify({
        executable: options.executablePath,
        version: session.browser.version(),
        text: await session.page.textContent('#probe'),
        audio,
        types: processes.map((line) => {
          const type = (line.match(/--type=([a-z-]+)/) || [null, 'browser'])[1];
          const service = line.match(/--utility-sub-type=[a-z_]+\\.mojom\\.([A-Za-z]+)/);
          return service ? type + ':' + service[1] : type;
        }),
      }));
      await session.close();`;
    const result = await run({
      shell: `node --input-type=module -e "$PROBE"`,
      env: [`PROBE=${script}`],
      seccompProfile: JSON.stringify(botSeccompProfile()),
    });
    expect(result.exitCode, result.stderr.slice(-2000)).toBe(0);
    const probe = JSON.parse(result.stdout.trim().split('\n').pop()!);
    expect(probe).toEqual({
      executable: '/usr/lib/chromium/chromium-headless-shell',
      version: expect.stringMatching(/^\d+\./),
      text: 'bot-image-ok',
      audio: 'running@16000',
      types: expect.arrayContaining(['browser', 'renderer']),
    });
    // One browser process with the GPU and network services inside it (the audio service keeps its
    // own process), and the zygotes that start sandboxed processes.
    expect(probe.types.filter((type: string) => type === 'browser')).toHaveLength(1);
    expect(probe.types).toContain('zygote');
    for (const separate of ['gpu-process', 'utility:NetworkService']) {
      expect(probe.types).not.toContain(separate);
    }
  });

  it('refuses AF_PACKET and netlink other than NETLINK_ROUTE under the bot profile, even in a new user and network namespace', async () => {
    // perl is Debian's essential perl-base (socket() and syscall() are built in, no modules): each
    // socket(domain, type, protocol) prints its name and 0 or the errno. With `unshare` it first
    // moves into new user and network namespaces, as Chromium's sandbox may: there the process holds
    // CAP_NET_RAW, so only the seccomp profile stands between it and a packet socket.
    const probe = `
      my ($unshare) = @ARGV;
      if ($unshare) {
        syscall($unshare, 0x10000000 | 0x40000000) == 0 or do { print "unshare ", $! + 0, "\n"; exit 0 };
      }
      for my $case (["unix", 1, 1, 0], ["inet", 2, 1, 0], ["inet6", 10, 2, 0], ["netlink_route", 16, 3, 0],
                    ["netlink_netfilter", 16, 3, 12], ["netlink_uevent", 16, 3, 15], ["packet", 17, 3, 768]) {
        my ($name, $domain, $type, $protocol) = @$case;
        if (socket(my $socket, $domain, $type, $protocol)) { print "$name 0\n"; close $socket }
        else { print "$name ", $! + 0, "\n" }
      }`;
    // unshare(2)'s number: x86-64 272, arm64 97.
    const shell =
      'n=$(case "$(uname -m)" in aarch64) echo 97;; *) echo 272;; esac); perl -e "$PROBE"; echo --; perl -e "$PROBE" "$n"';
    const answers = async (seccompProfile: string) => {
      const result = await run({ shell, env: [`PROBE=${probe}`], seccompProfile });
      expect(result.exitCode, result.stderr).toBe(0);
      const [plain, unshared] = result.stdout.split('--\n').map((part) =>
        Object.fromEntries(
          part
            .trim()
            .split('\n')
            .map((line) => line.split(' ') as [string, string]),
        ),
      );
      return { plain, unshared };
    };
    const EPERM = '1';
    const bot = await answers(JSON.stringify(botSeccompProfile()));
    for (const seen of [bot.plain, bot.unshared]) {
      expect(seen).toEqual({
        unix: '0',
        inet: '0',
        inet6: '0',
        netlink_route: '0',
        netlink_netfilter: EPERM,
        netlink_uevent: EPERM,
        packet: EPERM,
      });
    }
    // The control: the same profile with every socket allowed. In its own namespaces the probe then
    // opens a packet socket and a netfilter one, so the refusals above are the profile's doing.
    const everySocket = botSeccompProfile();
    everySocket.syscalls = [
      ...everySocket.syscalls.filter((rule) => !rule.names.includes('socket')),
      { names: ['socket'], action: 'SCMP_ACT_ALLOW' },
    ];
    const control = await answers(JSON.stringify(everySocket));
    expect(control.unshared).toMatchObject({ netlink_netfilter: '0', packet: '0' });
  });

  it('has pocketsphinx_continuous and the en-us model, which loads and decodes audio', async () => {
    const model = '/usr/share/pocketsphinx/model/en-us';
    const files = await run({
      shell: `command -v pocketsphinx_continuous && ls ${model}/en-us/mdef ${model}/en-us.lm.bin ${model}/cmudict-en-us.dict`,
    });
    expect(files.exitCode, files.stderr).toBe(0);
    expect(files.stdout).toContain('pocketsphinx_continuous');

    // One second of silence (raw s16le 16 kHz mono): loads the default en-us model and decodes.
    const decode = await run({
      shell: 'head -c 32000 /dev/zero >/tmp/silence.raw && pocketsphinx_continuous -infile /tmp/silence.raw',
    });
    expect(decode.exitCode, decode.stderr.slice(-2000)).toBe(0);
    expect(decode.stderr).toMatch(/en-us/);

    // The dictionary cut to the language model's words, written when the image was built.
    const dictionary = await run({
      shell: `wc -l < ${model}/meetbot-lm-words.dict; wc -l < ${model}/cmudict-en-us.dict`,
    });
    const [kept, full] = dictionary.stdout.trim().split('\n').map(Number);
    expect(kept).toBeGreaterThan(70_000);
    expect(kept).toBeLessThan(full! * 0.7);
  });

  it('holds the bot and the packages it needs, not the rest of the project', async () => {
    const result = await run({ shell: 'ls /app/dist; ls /app/node_modules' });
    expect(result.exitCode, result.stderr).toBe(0);
    const entries = result.stdout.trim().split('\n');
    expect(entries).toEqual(expect.arrayContaining(['bot', 'shared', 'playwright-core', 'ioredis', 'zod']));
    for (const foreign of [
      'api',
      'worker',
      'simulator',
      'knex',
      'koa',
      'pg',
      'bullmq',
      'dockerode',
      'typescript',
    ]) {
      expect(entries).not.toContain(foreign);
    }
  });

  it('starts the bot, which fails fast with a clear error when BOT_CONFIG is missing', async (context) => {
    const inImage = await run({ shell: 'test -f /app/dist/bot/main.js && echo present || echo absent' });
    if (!existsSync(resolve(ROOT, 'dist/bot/main.js'))) {
      // The bot program is not written (or not compiled) yet: nothing to start, so say so instead of passing.
      expect(inImage.stdout.trim()).toBe('absent');
      context.skip('dist/bot/main.js does not exist yet (run `npm run build` once bot/main.ts lands)');
      return;
    }
    expect(inImage.stdout.trim()).toBe('present');

    const result = await run();
    expect(result.exitCode).not.toBe(0);
    expect(`${result.stdout}\n${result.stderr}`).toContain('BOT_CONFIG');
    expect(result.ms).toBeLessThan(15_000);
  });
});

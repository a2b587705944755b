/**
 * The floor a bot is compared with: bare Chromium from the bot image, launched as the bot launches
 * it (bench/chromium-floor.mjs), sitting in a meeting page with no capture, recognizer or bot
 * around it, in a container started as the worker starts bots. Used by bench/bot-footprint.ts (one
 * floor beside one bot) and bench/capacity.ts (N floors beside N bots).
 */
import type Docker from 'dockerode';
import { sleep } from '../../shared/infra/async.js';
import { botSeccompProfile } from '../../worker/runtime/bot-seccomp-profile.js';

export interface FloorOptions {
  image: string;
  meetingUrl: string;
  platform: string;
  /** Chromium's own sandbox, as BOT_CHROMIUM_SANDBOX=on runs bots (the default). */
  sandbox: boolean;
  /** How long the page may take to get into the call. */
  joinTimeoutMs?: number;
}

/** Starts a floor container and resolves once its page is in the call; the caller removes it. */
export async function startFloor(docker: Docker, options: FloorOptions): Promise<Docker.Container> {
  const script = new URL('../chromium-floor.mjs', import.meta.url).pathname;
  const container = await docker.createContainer({
    Image: options.image,
    Entrypoint: ['node', 'bench/chromium-floor.mjs'],
    Cmd: [options.meetingUrl, options.platform, options.sandbox ? 'sandbox' : 'no-sandbox'],
    Labels: { 'meetbot.bench': 'chromium-floor' },
    HostConfig: {
      NetworkMode: 'host',
      Binds: [`${script}:/app/bench/chromium-floor.mjs:ro`],
      ShmSize: 256 * 1024 * 1024,
      Init: true,
      CapDrop: ['ALL'],
      // As the worker starts bots (worker/runtime/docker-runtime.ts).
      SecurityOpt: [
        'no-new-privileges',
        ...(options.sandbox ? [`seccomp=${JSON.stringify(botSeccompProfile())}`] : []),
      ],
    },
  });
  try {
    await container.start();
    const deadline = Date.now() + (options.joinTimeoutMs ?? 150_000);
    for (;;) {
      const logs = (await container.logs({ stdout: true, stderr: true })).toString();
      if (logs.includes('in call')) return container;
      const state = await container.inspect();
      if (!state.State.Running || Date.now() > deadline) {
        throw new Error(`the floor browser never joined:\n${logs}`);
      }
      await sleep(1000);
    }
  } catch (error) {
    await container.remove({ force: true }).catch(() => {});
    throw error;
  }
}

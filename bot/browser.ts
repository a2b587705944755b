import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { StorageState } from '../shared/contract/storage-state.js';
import type { Logger } from '../shared/infra/logger.js';
import { featureMergingLauncher } from './chromium-launcher.js';
import type { NavigationPolicy, NavigationVerdict } from './navigation-policy.js';

export interface BrowserOptions {
  executablePath: string;
  headless: boolean;
  /** Chromium's own sandbox (see chromiumArgs); off only where the container can't allow it. */
  sandbox: boolean;
}

/**
 * Only what a meeting bot needs: no GPU, no background services, no QUIC (meeting media goes over
 * WebRTC anyway), media without prompts or real devices, and audio that plays without a gesture.
 *
 * And as few processes as a one-page meeting allows (each costs tens of MiB): the GPU and network
 * services run inside the browser process, the page's frames share one renderer. The audio service
 * keeps its own process: inside the browser process, three bots on two cores fell behind by a median
 * 6 s in the second half of a meeting, against 1 s with it apart (docs/benchmarks.md).
 *
 * Chromium's sandbox is on in a bot container: the renderer that runs the meeting page (code
 * nobody here controls) lives in its own user, PID and network namespaces, without the file system,
 * under Chromium's seccomp filter. The container's seccomp profile (worker/runtime/bot-seccomp-profile.ts)
 * allows the namespaces it needs. The sandbox forks renderers from a zygote, so `--no-zygote` goes
 * with it. Off (`{ sandbox: false }`: BOT_CHROMIUM_SANDBOX=off, and tests that run Chromium as
 * root on the host) leaves the page confined by the container alone, without a zygote.
 */
export function chromiumArgs({ sandbox }: { sandbox: boolean }): string[] {
  return [
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-quic',
    '--autoplay-policy=no-user-gesture-required',
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    ...(sandbox ? [] : ['--no-sandbox', '--no-zygote']),
    '--in-process-gpu',
    '--renderer-process-limit=1',
    '--disable-site-isolation-trials',
    '--enable-features=NetworkServiceInProcess2',
  ];
}

export interface BrowserSession {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(
  options: BrowserOptions,
  log: Logger,
  storageState?: StorageState,
): Promise<BrowserSession> {
  if (!options.sandbox)
    log.warn('chromium runs without its sandbox: the container alone confines the meeting page');
  const browser = await chromium
    .launch({
      executablePath: await featureMergingLauncher(options.executablePath),
      headless: options.headless,
      // Playwright adds --no-sandbox unless told the sandbox is wanted.
      chromiumSandbox: options.sandbox,
      args: chromiumArgs(options),
      // The bot handles signals itself: it must leave the call before the browser goes.
      handleSIGTERM: false,
      handleSIGINT: false,
      handleSIGHUP: false,
    })
    .catch((error: unknown) => {
      throw options.sandbox ? explainSandboxFailure(error) : error;
    });
  log.info({ version: browser.version() }, 'chromium started');
  return openBrowserSession(browser, log, { ownsBrowser: true, storageState });
}

/**
 * Playwright's advice when the sandbox can't start names its own option; an operator needs the
 * setting and the reason (the failure reaches the meeting's `failed` event as its detail).
 */
export function explainSandboxFailure(error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  if (!/sandbox/i.test(message)) return error;
  return new Error(
    "Chromium's sandbox could not start in this container: the host must allow unprivileged user " +
      'namespaces and the container must run under the bot seccomp profile the worker applies ' +
      '(docs/how-a-bot-runs.md, "Chromium\'s sandbox"); where it can\'t, set BOT_CHROMIUM_SANDBOX=off on ' +
      `the workers. Chromium said: ${message}`,
    { cause: error },
  );
}

/**
 * A fresh context and page in a running Chromium, set up as the bot's. Closing the session closes
 * the context, and the browser too when the session owns it (a bot's own browser); tests that run
 * many sessions share one browser.
 */
export async function openBrowserSession(
  browser: Browser,
  log: Logger,
  { ownsBrowser, storageState }: { ownsBrowser: boolean; storageState?: StorageState | undefined },
): Promise<BrowserSession> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 720 },
    // The English UI the drivers read first: Teams follows the browser's language, which this sets
    // (navigator.language and Accept-Language); Meet gets hl=en on its URL as well.
    locale: 'en-US',
    permissions: ['microphone', 'camera'],
    // A signed-in bot: its bot account's cookies and localStorage (never logged).
    ...(storageState && { storageState }),
  });
  const page = await context.newPage();
  let closed = false;
  return {
    browser,
    context,
    page,
    async close() {
      if (closed) return;
      closed = true;
      const closing = ownsBrowser ? browser.close() : context.close();
      await closing.catch((error: unknown) => log.warn({ err: error }, 'closing chromium failed'));
    },
  };
}

/**
 * Stops top-level navigations the policy refuses before they load (a redirect to a sign-in host,
 * a "learn more" link) and reports them once; sub-frames (e.g. reCAPTCHA) are left alone.
 * Popups are closed: the bot only ever needs its one tab.
 */
export async function guardNavigation(
  session: BrowserSession,
  policy: NavigationPolicy,
  onRefused: (verdict: Exclude<NavigationVerdict, 'allow'>, url: string) => void,
  log: Logger,
): Promise<void> {
  const { context, page } = session;
  const cdp = await context.newCDPSession(page);
  const tree = (await cdp.send('Page.getFrameTree')) as { frameTree: { frame: { id: string } } };
  const mainFrameId = tree.frameTree.frame.id;
  cdp.on('Fetch.requestPaused', (event) => {
    const verdict = event.frameId === mainFrameId ? policy.verdict(event.request.url) : 'allow';
    if (verdict === 'allow') {
      cdp.send('Fetch.continueRequest', { requestId: event.requestId }).catch(() => {});
      return;
    }
    log.warn({ url: event.request.url, verdict }, 'refused a navigation');
    cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'Aborted' }).catch(() => {});
    onRefused(verdict, event.request.url);
  });
  await cdp.send('Fetch.enable', {
    patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Request' }],
  });
  context.on('page', (popup) => {
    if (popup === page) return;
    log.warn({ url: popup.url() }, 'closing a popup');
    popup.close().catch(() => {});
  });
}

import type { Page } from 'playwright-core';

// What tests do in a simulated meeting page as a plain guest (no bot): join it, and reach the
// page's RTCPeerConnections, which the page does not expose.

/** Joins a simulated Google Meet as "Notetaker". */
export async function joinMeet(page: Page): Promise<void> {
  await page.getByLabel('Your name').fill('Notetaker');
  await page.getByRole('button', { name: 'Join now', exact: true }).click();
}

/** Joins a simulated Teams meeting in the browser as "Notetaker". */
export async function joinTeams(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Continue on this browser' }).click();
  await page.locator('[data-tid="prejoin-display-name-input"]').fill('Notetaker');
  await page.locator('[data-tid="prejoin-join-button"]').click();
}

/** Joins a simulated Zoom meeting from its invitation link's landing page as "Notetaker". */
export async function joinZoom(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Join from your browser' }).click();
  await page.locator('#input-for-name').fill('Notetaker');
  await page.locator('button.preview-join-button').click();
}

/**
 * Collects every RTCPeerConnection the page makes into `window.__connections`; runs before the
 * page's own scripts.
 */
export async function collectPeerConnections(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const connections: RTCPeerConnection[] = [];
    Object.assign(window, { __connections: connections });
    const Original = window.RTCPeerConnection;
    window.RTCPeerConnection = class extends Original {
      constructor(config?: RTCConfiguration) {
        super(config);
        connections.push(this);
      }
    };
  });
}

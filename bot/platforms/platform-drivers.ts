import type { Page } from 'playwright-core';
import type { Platform } from '../../shared/contract/platforms.js';
import type { Logger } from '../../shared/infra/logger.js';
import type { PlatformDriver } from './driver.js';
import { GoogleMeetDriver } from './google-meet.js';
import { TeamsDriver } from './teams.js';
import { ZoomDriver } from './zoom.js';

/**
 * Each platform id of the contract (shared/contract/platforms.ts) with its driver. A `Record` over the
 * ids: a platform added to the contract does not compile here until it has a driver.
 */
export const PLATFORM_DRIVERS: Record<Platform, new (page: Page, log: Logger) => PlatformDriver> = {
  google_meet: GoogleMeetDriver,
  teams: TeamsDriver,
  zoom: ZoomDriver,
};

/** The driver of the meeting's platform; an id the contract does not know is an error, never another platform's driver. */
export function createPlatformDriver(platform: Platform, page: Page, log: Logger): PlatformDriver {
  const Driver = Object.hasOwn(PLATFORM_DRIVERS, platform) ? PLATFORM_DRIVERS[platform] : undefined;
  if (!Driver) {
    const known = Object.keys(PLATFORM_DRIVERS).join(', ');
    throw new Error(`no driver for the platform ${JSON.stringify(platform)} (known: ${known})`);
  }
  return new Driver(page, log);
}

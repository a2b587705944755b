import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { GoogleMeetDriver } from '../../../bot/platforms/google-meet.js';
import { createPlatformDriver, PLATFORM_DRIVERS } from '../../../bot/platforms/platform-drivers.js';
import { TeamsDriver } from '../../../bot/platforms/teams.js';
import { ZoomDriver } from '../../../bot/platforms/zoom.js';
import { PLATFORMS, type Platform } from '../../../shared/contract/platforms.js';
import { createLogger } from '../../../shared/infra/logger.js';

const log = createLogger('platform-drivers-test', 'silent');
const page = {} as Page;

describe('createPlatformDriver', () => {
  it('has a driver for every platform of the contract, and only those', () => {
    expect(Object.keys(PLATFORM_DRIVERS).sort()).toEqual([...PLATFORMS].sort());
  });

  it('gives each platform its own driver', () => {
    expect(createPlatformDriver('google_meet', page, log)).toBeInstanceOf(GoogleMeetDriver);
    expect(createPlatformDriver('teams', page, log)).toBeInstanceOf(TeamsDriver);
    expect(createPlatformDriver('zoom', page, log)).toBeInstanceOf(ZoomDriver);
  });

  it('fails clearly on a platform it does not know, rather than falling through to another driver', () => {
    expect(() => createPlatformDriver('webex' as Platform, page, log)).toThrow(
      'no driver for the platform "webex" (known: google_meet, teams, zoom)',
    );
    expect(() => createPlatformDriver('toString' as Platform, page, log)).toThrow(/no driver/);
  });
});

import { describe, expect, it } from 'vitest';
import { createNavigationPolicy } from '../../../bot/navigation-policy.js';

describe('navigation policy', () => {
  it("allows the platform's own hosts over https only", () => {
    const meet = createNavigationPolicy('google_meet', []);
    expect(meet.verdict('https://meet.google.com/abc-defg-hij')).toBe('allow');
    expect(meet.verdict('http://meet.google.com/abc-defg-hij')).toBe('blocked');
    expect(meet.verdict('https://teams.live.com/meet/123456789')).toBe('blocked');
    const teams = createNavigationPolicy('teams', []);
    expect(teams.verdict('https://teams.live.com/meet/123456789?p=abc')).toBe('allow');
    expect(teams.verdict('https://teams.microsoft.com/l/meetup-join/x/y')).toBe('allow');
    expect(teams.verdict('https://emea.teams.microsoft.com/light-meetings/launch')).toBe('allow');
    expect(teams.verdict('https://teams.microsoft.com.evil.example/')).toBe('blocked');
    const zoom = createNavigationPolicy('zoom', []);
    expect(zoom.verdict('https://zoom.us/wc/85412369870/join')).toBe('allow');
    expect(zoom.verdict('https://acme.zoom.us/j/85412369870?pwd=x')).toBe('allow');
    expect(zoom.verdict('https://app.zoom.us/wc/85412369870/join')).toBe('allow');
    expect(zoom.verdict('http://zoom.us/j/85412369870')).toBe('blocked');
    expect(zoom.verdict('https://zoom.us.evil.example/j/85412369870')).toBe('blocked');
    expect(zoom.verdict('https://meet.google.com/abc-defg-hij')).toBe('blocked');
  });

  it('recognises sign-in redirects', () => {
    const meet = createNavigationPolicy('google_meet', []);
    expect(meet.verdict('https://accounts.google.com/ServiceLogin?continue=x')).toBe('sign_in_required');
    expect(meet.verdict('https://workspace.google.com/products/meet/')).toBe('blocked');
    const teams = createNavigationPolicy('teams', []);
    expect(teams.verdict('https://login.microsoftonline.com/common/oauth2')).toBe('sign_in_required');
    expect(teams.verdict('https://login.live.com/login.srf')).toBe('sign_in_required');
  });

  it("adds the operator's extra origins, matching scheme, host and port exactly", () => {
    const policy = createNavigationPolicy('teams', ['http://127.0.0.1:4010']);
    expect(policy.verdict('http://127.0.0.1:4010/meet/123456789?p=x')).toBe('allow');
    expect(policy.verdict('http://127.0.0.1:4011/meet/123456789')).toBe('blocked');
    expect(policy.verdict('about:blank')).toBe('allow');
    expect(policy.verdict('not a url')).toBe('blocked');
  });
});

import { describe, expect, it } from 'vitest';
import {
  ensurePrerequisites,
  planPrerequisites,
  PrerequisiteError,
  prerequisites,
  type Host,
} from './prerequisites.js';

const wanted = prerequisites({});
const host = (over: Partial<Host> & { present?: string[] }): Host => ({
  isRoot: over.isRoot ?? false,
  hasAptGet: over.hasAptGet ?? true,
  isExecutable: (p) => (over.present ?? []).includes(p),
});

describe('the test prerequisites: the decision', () => {
  it('names Debian chromium at /usr/bin/chromium and promtool from the prometheus package', () => {
    expect(wanted.map((p) => [p.name, p.path, p.debianPackage])).toEqual([
      ['chromium', '/usr/bin/chromium', 'chromium'],
      ['promtool', '/usr/bin/promtool', 'prometheus'],
    ]);
    expect(prerequisites({ CHROMIUM_PATH: '/opt/c/chrome' })[0]!.path).toBe('/opt/c/chrome');
  });

  it('does nothing when everything is there, whoever runs it', () => {
    const present = ['/usr/bin/chromium', '/usr/bin/promtool'];
    expect(planPrerequisites(wanted, host({ present }))).toEqual({ action: 'ready' });
    expect(planPrerequisites(wanted, host({ present, hasAptGet: false }))).toEqual({
      action: 'ready',
    });
  });

  it('installs only the missing packages when root with apt-get', () => {
    const plan = planPrerequisites(wanted, host({ isRoot: true, present: ['/usr/bin/chromium'] }));
    expect(plan).toMatchObject({ action: 'install', packages: ['prometheus'] });
    expect(planPrerequisites(wanted, host({ isRoot: true }))).toMatchObject({
      action: 'install',
      packages: ['chromium', 'prometheus'],
    });
  });

  it('refuses with one line giving the command when not root', () => {
    const plan = planPrerequisites(wanted, host({ present: ['/usr/bin/promtool'] }));
    expect(plan.action).toBe('refuse');
    const message = plan.action === 'refuse' ? plan.message : '';
    expect(message).not.toContain('\n');
    expect(message).toContain('chromium (/usr/bin/chromium)');
    expect(message).toContain('sudo apt-get install -y --no-install-recommends chromium');
    expect(message).not.toContain('prometheus');
    expect(message).toContain('CHROMIUM_PATH');
  });

  it('refuses without a command it cannot give when there is no apt-get, even as root', () => {
    const plan = planPrerequisites(wanted, host({ isRoot: true, hasAptGet: false }));
    expect(plan.action).toBe('refuse');
    const message = plan.action === 'refuse' ? plan.message : '';
    expect(message).not.toContain('apt-get');
    expect(message).toContain("install Debian's chromium, prometheus packages");
  });

  it('throws the one line before doing anything', () => {
    const lines: string[] = [];
    expect(() => ensurePrerequisites(wanted, host({}), (l) => lines.push(l))).toThrow(
      PrerequisiteError,
    );
    expect(lines).toEqual([]);
  });
});

describe('the test prerequisites on this machine', () => {
  it('are present after the global setup (it installs or stops the run)', () => {
    expect(() => ensurePrerequisites()).not.toThrow();
  });
});

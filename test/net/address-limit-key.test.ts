import { describe, expect, it } from 'vitest';
import { addressLimitKey } from '../../src/shared/net/address-limit-key.js';

describe('addressLimitKey', () => {
  it('keeps an IPv4 address whole', () => {
    expect(addressLimitKey('203.0.113.9')).toBe('203.0.113.9');
  });

  it('keys IPv6 by its /64, however the address is written', () => {
    const key = '2001:db8:0:1::/64';
    for (const a of [
      '2001:db8:0:1::1',
      '2001:DB8:0:1:ffff:ffff:ffff:ffff',
      '2001:0db8:0000:0001:0:0:0:2',
      '[2001:db8:0:1::3]',
      'fe80::1%eth0'.replace('fe80::1', '2001:db8:0:1::4'),
    ]) {
      expect(addressLimitKey(a)).toBe(key);
    }
    expect(addressLimitKey('2001:db8:0:2::1')).toBe('2001:db8:0:2::/64');
    expect(addressLimitKey('::1')).toBe('0:0:0:0::/64');
  });

  it('counts an IPv4-mapped address as the IPv4 address it carries', () => {
    expect(addressLimitKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
  });

  it('leaves what does not parse as its own key', () => {
    expect(addressLimitKey('not:an:address:::')).toBe('not:an:address:::');
  });
});

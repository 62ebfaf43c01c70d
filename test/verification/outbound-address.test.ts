// Where a check may send a request: the URL as written, and each address a name resolves to or a redirect goes to.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLoopbackHost, outboundUrlProblem, refusedAddressProblem } from '../../lib/util/outbound-address.js';

describe('outbound URLs as written', () => {
  const cases: { url: string; allowLoopbackHttp?: boolean; refused: boolean }[] = [
    { url: 'https://prometheus.example/api', refused: false },
    { url: 'https://10.0.0.7:9090', refused: false },
    { url: 'http://prometheus.example', refused: true },
    { url: 'http://prometheus.example', allowLoopbackHttp: true, refused: true },
    { url: 'http://127.0.0.1:9090', refused: true },
    { url: 'http://127.0.0.1:9090', allowLoopbackHttp: true, refused: false },
    { url: 'http://localhost:9090', allowLoopbackHttp: true, refused: false },
    { url: 'http://[::1]:9090', allowLoopbackHttp: true, refused: false },
    { url: 'http://[::ffff:127.0.0.1]:9090', allowLoopbackHttp: true, refused: false },
    { url: 'https://169.254.169.254/latest/meta-data/', refused: true },
    { url: 'https://169.254.170.2/v2/credentials', refused: true },
    { url: 'https://[fe80::1]/', refused: true },
    { url: 'https://[fd00:ec2::254]/', refused: true },
    { url: 'https://[::ffff:169.254.169.254]/', refused: true },
    { url: 'https://[::ffff:a9fe:a9fe]/', refused: true },
    { url: 'https://0.0.0.0/', refused: true },
    { url: 'https://[::]/', refused: true },
    { url: 'https://224.0.0.1/', refused: true },
    { url: 'https://[ff02::1]/', refused: true },
    { url: 'https://user:secret@prometheus.example/', refused: true },
    { url: 'ftp://prometheus.example/', refused: true },
    { url: 'https:prometheus.example', refused: true },
    { url: 'not a url', refused: true },
  ];
  for (const { url, allowLoopbackHttp, refused } of cases) {
    it(`${url}${allowLoopbackHttp ? ' (loopback http allowed)' : ''} is ${refused ? 'refused' : 'allowed'}`, () => {
      const problem = outboundUrlProblem(url, { allowLoopbackHttp });
      assert.equal(problem !== undefined, refused, problem);
      if (problem) assert.ok(!problem.includes('secret'), 'the problem never repeats a password');
    });
  }
});

describe('addresses a connection may go to', () => {
  const cases: { address: string; refused: boolean }[] = [
    { address: '169.254.169.254', refused: true },
    { address: '169.254.0.1', refused: true },
    { address: '0.0.0.0', refused: true },
    { address: '255.255.255.255', refused: true },
    { address: '239.1.2.3', refused: true },
    { address: 'fe80::1', refused: true },
    { address: 'febf::1', refused: true },
    { address: 'fe80::1%eth0', refused: true },
    { address: 'fd00:ec2::254', refused: true },
    { address: '::', refused: true },
    { address: 'ff05::2', refused: true },
    { address: '::ffff:169.254.169.254', refused: true },
    { address: '::ffff:a9fe:a9fe', refused: true },
    { address: '::ffff:0.0.0.0', refused: true },
    { address: '127.0.0.1', refused: false },
    { address: '10.1.2.3', refused: false },
    { address: '192.168.1.1', refused: false },
    { address: '52.94.1.1', refused: false },
    { address: '::1', refused: false },
    { address: '2001:db8::1', refused: false },
    { address: 'fd00:ec2::253', refused: false },
    { address: '::ffff:10.0.0.1', refused: false },
  ];
  for (const { address, refused } of cases) {
    it(`${address} is ${refused ? 'refused' : 'allowed'}`, () => {
      assert.equal(refusedAddressProblem(address) !== undefined, refused);
    });
  }

  it('knows the loopback interface in every spelling', () => {
    for (const host of [
      'localhost',
      'app.localhost',
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '0:0:0:0:0:0:0:1',
      '::ffff:127.0.0.1',
    ]) {
      assert.equal(isLoopbackHost(host), true, host);
    }
    for (const host of ['localhost.example', '128.0.0.1', '::2', '::ffff:10.0.0.1', 'example.com']) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });
});

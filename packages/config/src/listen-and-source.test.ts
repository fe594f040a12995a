import { configSource, listenAddress, splitListen } from './load-config.js';

describe('listenAddress and splitListen', () => {
  it.each(['127.0.0.1:8080', '0.0.0.0:1', 'localhost:65535', '[::1]:8081'])('accepts %s', (v) => {
    expect(listenAddress.safeParse(v).success).toBe(true);
  });

  it.each(['8080', '127.0.0.1', '127.0.0.1:', 'host:99999', 'a b:80'])('refuses %s', (v) => {
    expect(listenAddress.safeParse(v).success).toBe(false);
  });

  it('splits host and port, unbracketing IPv6', () => {
    expect(splitListen('0.0.0.0:8080')).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(splitListen('[::1]:8081')).toEqual({ host: '::1', port: 8081 });
  });
});

describe('configSource', () => {
  it('takes the first positional argument as the config file, relative to the caller', () => {
    expect(configSource(['my.yaml', '--port=1'], '/svc/config.yaml', '/home/u')).toEqual({
      file: '/home/u/my.yaml',
      fileMustExist: true,
      argv: ['--port=1'],
    });
  });

  it('falls back to the default file when the command line starts with a flag', () => {
    expect(configSource(['--port', '1'], '/svc/config.yaml', '/home/u')).toEqual({
      file: '/svc/config.yaml',
      fileMustExist: false,
      argv: ['--port', '1'],
    });
    expect(configSource([], '/svc/config.yaml', '/home/u')).toEqual({
      file: '/svc/config.yaml',
      fileMustExist: false,
      argv: [],
    });
  });
});

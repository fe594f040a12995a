import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError, loadConfig } from './load-config.js';

const schema = z.object({
  name: z.string().min(1).default('svc'),
  port: z.number().int().min(1).max(65535).default(8080),
  verbose: z.boolean().default(false),
  data_dir: z.string().min(1).default('./data'),
  database_url: z.string().optional(),
  mode: z.enum(['fast', 'safe']).default('safe'),
});

const PREFIX = 'TEST_SVC';
const PATH_KEYS = ['data_dir', 'database_url'];

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'load-config-'));
  file = path.join(dir, 'config.yaml');
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function load(
  options: { yaml?: string; env?: NodeJS.ProcessEnv; argv?: string[]; noFile?: boolean } = {},
) {
  if (options.yaml !== undefined) fs.writeFileSync(file, options.yaml);
  return loadConfig(schema, {
    file: options.noFile ? undefined : file,
    env: options.env ?? {},
    argv: options.argv ?? [],
    prefix: PREFIX,
    pathKeys: PATH_KEYS,
  });
}

/** The problems of the ConfigError the call throws; fails the test when it does not throw one. */
function problemsOf(call: () => unknown): readonly string[] {
  try {
    call();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const message = (err as ConfigError).message;
    expect(message).not.toContain('\n');
    expect(message).toBe(`invalid configuration: ${(err as ConfigError).problems.join('; ')}`);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError, but the configuration loaded');
}

describe('loadConfig layers', () => {
  it('uses the defaults when the config file is missing', () => {
    expect(load()).toEqual({
      name: 'svc',
      port: 8080,
      verbose: false,
      data_dir: path.join(dir, 'data'),
      mode: 'safe',
    });
  });

  it('refuses a named config file that does not exist, naming it (a typo must not start on defaults)', () => {
    expect(
      problemsOf(() => loadConfig(schema, { file, fileMustExist: true, env: {}, prefix: PREFIX })),
    ).toEqual([`${file}: no such file (a config file named on the command line must exist)`]);
  });

  it('uses the defaults for an empty config file', () => {
    expect(load({ yaml: '' }).port).toBe(8080);
  });

  it('lets the YAML file override the defaults', () => {
    const config = load({ yaml: 'name: from-file\nport: 9000\nverbose: true\nmode: fast\n' });
    expect(config).toEqual({
      name: 'from-file',
      port: 9000,
      verbose: true,
      data_dir: path.join(dir, 'data'),
      mode: 'fast',
    });
  });

  it('lets the environment override the file, and flags override the environment', () => {
    const yaml = 'name: from-file\nport: 9000\nmode: fast\n';
    const env = { TEST_SVC_PORT: '9001', TEST_SVC_NAME: 'from-env' };
    expect(load({ yaml, env })).toMatchObject({ name: 'from-env', port: 9001, mode: 'fast' });
    expect(load({ yaml, env, argv: ['--port=9002'] })).toMatchObject({
      name: 'from-env',
      port: 9002,
      mode: 'fast',
    });
  });

  it('reads environment names as the prefix plus the upper-cased key, ignoring other variables', () => {
    const config = load({
      env: {
        TEST_SVC_DATA_DIR: '/srv/data',
        TEST_SVC_VERBOSE: 'true',
        TEST_SVCX_PORT: 'not mine',
        PORT: 'not mine either',
        HOME: '/root',
      },
    });
    expect(config).toMatchObject({ data_dir: '/srv/data', verbose: true, port: 8080 });
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['on', true],
    ['false', false],
    ['0', false],
    ['no', false],
    ['off', false],
  ])('reads the environment boolean %s as %s', (raw, expected) => {
    expect(load({ env: { TEST_SVC_VERBOSE: raw } }).verbose).toBe(expected);
  });

  it('reads flags as --key=value, --key value and a bare boolean', () => {
    expect(load({ argv: ['--port=1234', '--name', 'flagged', '--verbose'] })).toMatchObject({
      port: 1234,
      name: 'flagged',
      verbose: true,
    });
  });

  it('takes a value after a boolean flag, and a bare boolean before another flag', () => {
    expect(load({ yaml: 'verbose: true\n', argv: ['--verbose', 'false'] }).verbose).toBe(false);
    expect(load({ argv: ['--verbose', '--port', '7'] })).toMatchObject({ verbose: true, port: 7 });
  });

  it('treats dashes and underscores in flag names alike', () => {
    expect(load({ argv: ['--data-dir=/a'] }).data_dir).toBe('/a');
    expect(load({ argv: ['--data_dir', '/b'] }).data_dir).toBe('/b');
  });

  it('keeps an equals sign inside a flag value', () => {
    expect(load({ argv: ['--name=a=b'] }).name).toBe('a=b');
  });
});

describe('loadConfig paths', () => {
  it('resolves relative paths from every layer against the config file folder', () => {
    expect(load({ yaml: 'data_dir: ./files\n' }).data_dir).toBe(path.join(dir, 'files'));
    expect(load({ env: { TEST_SVC_DATA_DIR: 'env-files' } }).data_dir).toBe(
      path.join(dir, 'env-files'),
    );
    expect(load({ argv: ['--data-dir', '../up'] }).data_dir).toBe(path.resolve(dir, '..', 'up'));
  });

  it('leaves absolute paths and URL values alone', () => {
    const config = load({
      yaml: 'data_dir: /var/lib/svc\ndatabase_url: postgres://u@db:5432/app\n',
    });
    expect(config.data_dir).toBe('/var/lib/svc');
    expect(config.database_url).toBe('postgres://u@db:5432/app');
  });

  it('resolves a relative path-valued setting that is not a URL', () => {
    expect(load({ yaml: 'database_url: ./pg\n' }).database_url).toBe(path.join(dir, 'pg'));
  });

  it('resolves against the working directory when no config file is given', () => {
    expect(load({ noFile: true }).data_dir).toBe(path.resolve('data'));
  });

  it('does not touch keys that are not path keys', () => {
    expect(load({ yaml: 'name: ./not-a-path\n' }).name).toBe('./not-a-path');
  });
});

describe('loadConfig result', () => {
  it('is frozen', () => {
    const config = load();
    expect(Object.isFrozen(config)).toBe(true);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});

describe('loadConfig failures', () => {
  it('names an unknown key in the file', () => {
    expect(problemsOf(() => load({ yaml: 'prot: 80\n' }))).toEqual(['prot: unknown key']);
  });

  it('names an unknown environment variable with the prefix', () => {
    expect(problemsOf(() => load({ env: { TEST_SVC_PROT: '80' } }))).toEqual([
      'TEST_SVC_PROT: unknown setting',
    ]);
  });

  it('names an unknown flag', () => {
    expect(problemsOf(() => load({ argv: ['--prot=80'] }))).toEqual(['--prot: unknown flag']);
  });

  it('names the key and the expected type for a wrong type in the file', () => {
    expect(problemsOf(() => load({ yaml: 'port: eighty\n' }))).toEqual([
      'port: Invalid input: expected number, received string',
    ]);
  });

  it('names the key for a value the environment cannot turn into a number or a boolean', () => {
    expect(
      problemsOf(() => load({ env: { TEST_SVC_PORT: 'eighty', TEST_SVC_VERBOSE: 'maybe' } })),
    ).toEqual([
      'port: Invalid input: expected number, received string',
      'verbose: Invalid input: expected boolean, received string',
    ]);
  });

  it('names the key and the allowed range or values for a bad value', () => {
    expect(problemsOf(() => load({ yaml: 'port: 70000\nmode: slow\n' }))).toEqual([
      'port: Too big: expected number to be <=65535',
      'mode: Invalid option: expected one of "fast"|"safe"',
    ]);
  });

  it('reports a file that is not valid YAML', () => {
    const problems = problemsOf(() => load({ yaml: 'port: [1,\n' }));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${file}: not valid YAML \\(.+\\)$`));
  });

  it('reports a file that is not a mapping', () => {
    expect(problemsOf(() => load({ yaml: '- a\n- b\n' }))).toEqual([
      `${file}: expected a mapping of keys to values`,
    ]);
  });

  it('reports a config path that cannot be read', () => {
    fs.mkdirSync(file);
    const problems = problemsOf(() => load());
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${file}: cannot be read \\(.*EISDIR.*\\)$`));
  });

  it('reports a flag without its value and a stray positional argument', () => {
    expect(problemsOf(() => load({ argv: ['stray', '--name', '--port'] }))).toEqual([
      'stray: unexpected argument (flags look like --key=value)',
      '--name: expected a value',
      '--port: expected a value',
    ]);
  });

  it('reports every problem of every layer in one error', () => {
    const problems = problemsOf(() =>
      load({
        yaml: 'nmae: x\nmode: slow\n',
        env: { TEST_SVC_COLOUR: 'red', TEST_SVC_PORT: '0' },
        argv: ['--verbose=perhaps', '--bogus'],
      }),
    );
    expect(problems).toEqual([
      'TEST_SVC_COLOUR: unknown setting',
      '--bogus: unknown flag',
      'port: Too small: expected number to be >=1',
      'verbose: Invalid input: expected boolean, received string',
      'mode: Invalid option: expected one of "fast"|"safe"',
      'nmae: unknown key',
    ]);
  });
});

describe('loadConfig .env files', () => {
  const envFile = (name: string, text: string) => {
    const at = path.join(dir, name);
    fs.writeFileSync(at, text);
    return at;
  };

  it('sit between the config file and the environment; flags still win', () => {
    fs.writeFileSync(file, 'name: from-file\nport: 1000\nmode: fast\nverbose: false\n');
    const dotenv = envFile(
      '.env',
      '# a comment\nTEST_SVC_PORT=2000\nTEST_SVC_NAME="from .env"\nexport TEST_SVC_VERBOSE=true\nOTHER_SVC_PORT=1\n',
    );
    const config = loadConfig(schema, {
      file,
      envFiles: [dotenv],
      env: { TEST_SVC_PORT: '3000' },
      argv: ['--mode=safe'],
      prefix: PREFIX,
    });
    expect({ ...config }).toEqual({
      name: 'from .env',
      port: 3000,
      verbose: true,
      data_dir: './data',
      mode: 'safe',
    });
  });

  it('let a later file win, and skip a missing one', () => {
    const first = envFile('first.env', 'TEST_SVC_PORT=1111\nTEST_SVC_NAME=first\n');
    const second = envFile('second.env', 'TEST_SVC_PORT=2222\n');
    const config = loadConfig(schema, {
      envFiles: [first, path.join(dir, 'missing.env'), second],
      prefix: PREFIX,
    });
    expect([config.name, config.port]).toEqual(['first', 2222]);
  });

  it('name an unknown setting of theirs and a bad value, as the environment does', () => {
    const dotenv = envFile('.env', 'TEST_SVC_COLOUR=red\nTEST_SVC_PORT=lots\n');
    expect(problemsOf(() => loadConfig(schema, { envFiles: [dotenv], prefix: PREFIX }))).toEqual([
      'TEST_SVC_COLOUR: unknown setting',
      'port: Invalid input: expected number, received string',
    ]);
  });
});

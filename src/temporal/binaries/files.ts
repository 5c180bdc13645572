/** Cheap file-system checks: is this an executable file, which one does PATH give. */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Undefined when `path` is an executable regular file; otherwise why it is not. */
export async function executableProblem(path: string): Promise<string | undefined> {
  let info;
  try {
    info = await stat(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? `${path} does not exist` : `${path} cannot be read (${code ?? String(err)})`;
  }
  if (!info.isFile()) return `${path} is not a file`;
  if (process.platform === 'win32') return undefined;
  try {
    await access(path, constants.X_OK);
  } catch {
    return `${path} is not executable`;
  }
  return undefined;
}

export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

export async function isExecutableFile(path: string): Promise<boolean> {
  return (await executableProblem(path)) === undefined;
}

/** First executable called `name` in the env's PATH (PATHEXT-aware on Windows), or undefined. */
export async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const pathVar = env.PATH ?? env.Path ?? '';
  const exts = process.platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : [''];
  for (const dir of pathVar.split(delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (await isExecutableFile(candidate)) return isAbsolute(candidate) ? candidate : resolve(candidate);
    }
  }
  return undefined;
}

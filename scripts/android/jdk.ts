import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The JDK commands the build runs. */
export interface Jdk {
  javac: string;
  java: string;
  keytool: string;
}

export const NO_JDK_MESSAGE = 'javac not found; install a JDK (apt-get install openjdk-17-jdk-headless) to build and check the Android app';

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const pathDirs = (env: NodeJS.ProcessEnv): string[] => (env.PATH ?? '').split(path.delimiter).filter(Boolean);

/** Whether a command is on PATH. */
export const onPath = (command: string, env: NodeJS.ProcessEnv = process.env): boolean => pathDirs(env).some((d) => executable(path.join(d, command)));

/** The JDK from JAVA_HOME, else from PATH; undefined when javac is missing. Synchronous, for test collection. */
export function findJdk(env: NodeJS.ProcessEnv = process.env): Jdk | undefined {
  const dirs = [env.JAVA_HOME ? path.join(env.JAVA_HOME, 'bin') : '', ...pathDirs(env)].filter(Boolean);
  const dir = dirs.find((d) => executable(path.join(d, 'javac')) && executable(path.join(d, 'java')));
  if (!dir) return undefined;
  return { javac: path.join(dir, 'javac'), java: path.join(dir, 'java'), keytool: path.join(dir, 'keytool') };
}

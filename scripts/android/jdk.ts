import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The JDK commands the build runs. */
export interface Jdk {
  javac: string;
  java: string;
  keytool: string;
}

export const NO_JDK_MESSAGE = 'javac was not found: install a JDK (apt-get install openjdk-17-jdk-headless) to build the Android app';

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The JDK from JAVA_HOME, else from PATH; undefined when javac is missing. Synchronous, for test collection. */
export function findJdk(env: NodeJS.ProcessEnv = process.env): Jdk | undefined {
  const dirs = [env.JAVA_HOME ? path.join(env.JAVA_HOME, 'bin') : '', ...(env.PATH ?? '').split(path.delimiter)].filter(Boolean);
  const dir = dirs.find((d) => executable(path.join(d, 'javac')) && executable(path.join(d, 'java')));
  if (!dir) return undefined;
  return { javac: path.join(dir, 'javac'), java: path.join(dir, 'java'), keytool: path.join(dir, 'keytool') };
}

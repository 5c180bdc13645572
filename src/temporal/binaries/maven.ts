/**
 * Installs the Java time-skipping test server from Maven Central: a tiny pom whose dependencies
 * `mvn dependency:copy-dependencies` copies into `lib/`, plus a wrapper script named
 * `temporal-test-server` that runs `java -cp lib/* io.temporal.testserver.TestServer "$@"`.
 * @temporalio/testing runs an existing-path test server as `<exe> <port> [extraArgs…]`, which is exactly
 * what TestServer's main takes; it stops it with SIGKILL, which reaches java directly thanks to `exec`.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { installDirAtomically, withFileLock } from './atomic-install.js';
import { executableProblem, findOnPath, isExecutableFile, isFile } from './files.js';
import { describeFailure, runCommand } from './run.js';
import { cacheLayout, JAVA_TEST_SERVER_MAIN_CLASS, MAVEN_TEST_SERVER } from './specs.js';
import type { InstallContext, InstallOutcome } from './install-context.js';

const MVN_TIMEOUT_MS = 15 * 60_000;
const { groupId, artifactId, version } = MAVEN_TEST_SERVER;

const pom = `<?xml version="1.0" encoding="UTF-8"?>
<!-- Written by Arbor to fetch the Temporal time-skipping test server and its dependencies. -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>arbor.local</groupId>
  <artifactId>arbor-java-test-server</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>${groupId}</groupId>
      <artifactId>${artifactId}</artifactId>
      <version>${version}</version>
    </dependency>
    <!-- Silences SLF4J's "no binding" warning on every start. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-nop</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
`;

const wrapper = `#!/bin/sh
# Written by Arbor: Temporal time-skipping test server ${groupId}:${artifactId}:${version} (Java).
# Usage: temporal-test-server <port> [args...]
dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd) || exit 1
if [ -n "$JAVA_HOME" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"; else java=java; fi
exec "$java" -cp "$dir/lib/*" ${JAVA_TEST_SERVER_MAIN_CLASS} "$@"
`;

async function findJava(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (env.JAVA_HOME) {
    const fromHome = join(env.JAVA_HOME, 'bin', 'java');
    if (!(await executableProblem(fromHome))) return fromHome;
  }
  return findOnPath('java', env);
}

export async function installJavaTestServerWithMaven(ctx: InstallContext): Promise<InstallOutcome> {
  const way = `mvn ${groupId}:${artifactId}:${version} (Java test server)`;
  if (process.platform === 'win32') return { way, reason: 'the Java test server wrapper is a POSIX shell script' };
  const mvnPath = await findOnPath('mvn', ctx.env);
  if (!mvnPath) return { way, reason: 'mvn not found on PATH' };
  if (!(await findJava(ctx.env))) return { way, reason: 'java not found (neither $JAVA_HOME/bin/java nor on PATH)' };

  const targetDir = cacheLayout.javaTestServerDir(ctx.cacheDir);
  const wrapperIn = (dir: string) => join(dir, 'temporal-test-server');
  const isComplete = async (dir: string) =>
    (await isExecutableFile(wrapperIn(dir))) && (await isFile(join(dir, 'lib', `${artifactId}-${version}.jar`)));
  const lockPath = join(cacheLayout.locksDir(ctx.cacheDir), 'maven-test-server.lock');
  return withFileLock(
    lockPath,
    async (): Promise<InstallOutcome> => {
      if (await isComplete(targetDir)) return { way, path: wrapperIn(targetDir) };
      ctx.log(`fetching ${groupId}:${artifactId}:${version} with ${mvnPath} into ${targetDir}`);
      try {
        await installDirAtomically(
          targetDir,
          async (staging) => {
            await writeFile(join(staging, 'pom.xml'), pom);
            const args = [
              '-q',
              '-B',
              '-f',
              join(staging, 'pom.xml'),
              'dependency:copy-dependencies',
              `-DoutputDirectory=${join(staging, 'lib')}`,
              '-DincludeScope=runtime',
            ];
            const result = await runCommand(mvnPath, args, { env: ctx.env, cwd: staging, timeoutMs: MVN_TIMEOUT_MS });
            if (result.code !== 0) throw new Error(describeFailure('mvn dependency:copy-dependencies', result));
            await writeFile(wrapperIn(staging), wrapper);
            await chmod(wrapperIn(staging), 0o755);
          },
          isComplete,
        );
        return { way, path: wrapperIn(targetDir) };
      } catch (err) {
        return { way, reason: (err as Error).message };
      }
    },
    () => ctx.log(`waiting for another process fetching the Java test server (lock ${lockPath})`),
  );
}

// Keeps new commits to the message convention of CONTRIBUTING.md ("Commit messages"): a subject of
// at most 72 characters that says what changed, a blank line, then a body that says why. Run by
// `pnpm lint`, in the repository of the working directory. Commits up to BASELINE (or the commit
// given as `--baseline <commit>`) predate the convention and are left as they are.
//
// In a shallow clone (CI's checkout) the baseline may be beyond the history fetched: every commit
// that is there is then newer than it and is checked. Merge commits are left out: tools write them.
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";

/**
 * The last commit before the convention was checked; history is never rewritten to follow it.
 * (f6f35d0, a 74-character subject, landed on main as the check did.)
 */
const BASELINE = "f6f35d0fa6c4ed8e27746e7930bba66610ecb697";
const MAX_SUBJECT = 72;

const git = (...args) => execFileSync("git", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** What is wrong with one commit message, or an empty list. */
function messageProblems(message) {
  const [subject = "", second] = message.replace(/\n+$/, "").split("\n");
  const problems = [];
  if (subject.trim() === "") problems.push("the subject is empty");
  if (subject.length > MAX_SUBJECT)
    problems.push(
      `the subject has ${subject.length} characters (at most ${MAX_SUBJECT}; the why goes in the body)`,
    );
  if (/[.]$/.test(subject)) problems.push("the subject ends with a period");
  if (/^(fixup|squash|amend)! /.test(subject)) problems.push("a fixup commit: squash it before it lands");
  if (second !== undefined && second.trim() !== "")
    problems.push("the second line is not blank (subject, blank line, body)");
  return problems;
}

function commitsToCheck(baseline) {
  const known = (() => {
    try {
      git("cat-file", "-e", `${baseline}^{commit}`);
      return true;
    } catch {
      return false;
    }
  })();
  if (!known && git("rev-parse", "--is-shallow-repository").trim() !== "true") {
    throw new Error(`baseline commit ${baseline} is not in this repository's history`);
  }
  const range = known ? ["HEAD", `^${baseline}`] : ["HEAD"];
  const listed = git("rev-list", "--no-merges", ...range).trim();
  return listed === "" ? [] : listed.split("\n");
}

function main(args) {
  const flag = args.indexOf("--baseline");
  const baseline = flag === -1 ? BASELINE : args[flag + 1];
  try {
    git("rev-parse", "--git-dir");
  } catch {
    console.log("commit messages: not a git checkout, nothing to check");
    return;
  }
  let commits;
  try {
    commits = commitsToCheck(baseline);
  } catch (error) {
    console.error(`commit messages: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  let failed = 0;
  for (const commit of commits) {
    const message = git("log", "-1", "--format=%B", commit);
    const problems = messageProblems(message);
    if (problems.length === 0) continue;
    failed++;
    console.error(`${commit.slice(0, 10)} ${message.split("\n")[0]}`);
    for (const problem of problems) console.error(`  ${problem}`);
  }
  if (failed > 0) {
    console.error(
      `commit messages: ${failed} of ${commits.length} new commits break the convention (CONTRIBUTING.md, "Commit messages"); reword them with git rebase -i before they land`,
    );
    process.exitCode = 1;
  } else {
    console.log(`commit messages: ${commits.length} commits after the baseline follow the convention`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));

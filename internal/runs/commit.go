package runs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/toolgrade/toolgrade/internal/record"
)

// commitVars are the CI variables that name the commit being built, read
// when git cannot say (no git on PATH, or a checkout without .git): GitHub
// Actions, GitLab CI, Buildkite, CircleCI, Travis, Jenkins' git plugin.
var commitVars = []string{"GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "CIRCLE_SHA1", "TRAVIS_COMMIT", "GIT_COMMIT"}

// shaPattern is a full SHA-1 or SHA-256 commit hash.
var shaPattern = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// gitTimeout bounds each git command: a run must not hang on a repository
// on a dead network mount.
const gitTimeout = 10 * time.Second

// SuiteCommit is the commit of the repository holding the suite file at
// suitePath: git's HEAD and whether the tree is dirty, else the first CI
// variable (read with getenv) holding a commit hash; nil when neither says.
func SuiteCommit(ctx context.Context, suitePath string, getenv func(string) string) *record.RunCommit {
	dir := filepath.Dir(suitePath)
	if sha := git(ctx, dir, "rev-parse", "--verify", "-q", "HEAD"); shaPattern.MatchString(sha) {
		// --porcelain lists every change, untracked files too: one
		// line is enough to say the tree is not the commit.
		status, ok := gitOK(ctx, dir, "status", "--porcelain", "--untracked-files=normal")
		return &record.RunCommit{SHA: sha, Dirty: ok && status != "", Source: "git"}
	}
	for _, v := range commitVars {
		if sha := strings.ToLower(strings.TrimSpace(getenv(v))); shaPattern.MatchString(sha) {
			return &record.RunCommit{SHA: sha, Source: v}
		}
	}
	return nil
}

func git(ctx context.Context, dir string, args ...string) string {
	out, _ := gitOK(ctx, dir, args...)
	return out
}

// gitOK runs git in dir and returns its trimmed output, and whether it
// succeeded.
func gitOK(ctx context.Context, dir string, args ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	// A user's GIT_DIR would point every suite at one repository.
	cmd.Env = []string{"GIT_OPTIONAL_LOCKS=0"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err == nil
}

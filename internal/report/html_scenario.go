package report

import "github.com/toolgrade/toolgrade/internal/record"

// leanTurn is one user turn of a scenario in the viewer: the user's message,
// whether the user model wrote it, the index of its first round, its answer.
type leanTurn struct {
	User      string  `json:"user"`
	UserModel bool    `json:"um,omitempty"`
	First     int     `json:"first"`
	Answer    string  `json:"a,omitempty"`
	Limit     bool    `json:"limit,omitempty"`
	WallMS    float64 `json:"ms"`
}

// leanCheck is one state check in the viewer: its call, result and
// verdict.
type leanCheck struct {
	leanCall
	OK     bool   `json:"ok"`
	Detail string `json:"d,omitempty"`
}

// leanScenario adds a scenario's turns, setup calls and state checks to
// lt; a trial of one question has none.
func leanScenario(lt *leanTrial, tr *record.Transcript) {
	for _, tu := range tr.Turns {
		lt.Turns = append(lt.Turns, leanTurn{User: tu.User, UserModel: tu.From == record.FromUserModel,
			First: tu.FirstRound, Answer: tu.Answer, Limit: tu.RoundLimitHit, WallMS: ms(tu.Wall)})
	}
	if len(tr.Turns) > 0 && len(lt.Messages) > 0 && lt.Messages[len(lt.Messages)-1].Role == "user" {
		// The first turn's message is drawn with its turn.
		lt.Messages = lt.Messages[:len(lt.Messages)-1]
	}
	for _, x := range tr.Setup {
		lt.Setup = append(lt.Setup, leanExec(x))
	}
	for _, c := range tr.Checks {
		lt.Checks = append(lt.Checks, leanCheck{leanCall: leanExec(c.Execution), OK: c.OK, Detail: c.Detail})
	}
}

// leanExec is an execution the suite made itself (setup, check) as a call
// with its result.
func leanExec(x record.Execution) leanCall {
	res := x.Result
	return leanCall{Name: x.Name, Args: record.Args(x.Arguments), Result: &res, Kind: x.ErrorKind, Error: x.Error, ExecMS: ms(x.Duration)}
}

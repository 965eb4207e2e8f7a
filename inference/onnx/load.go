package onnx

// Loading a model into a runtime session: the runtime, the tokenizer
// (beside the session), the optimized-model cache (optcache.go) or the
// model file, and the checks that the graph, the spec and the tokenizer
// belong together.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/gnosearch/gno/models"
)

// load does the expensive work on first use: runtime, tokenizer, graph
// checks, session.
func (s *session) load() error {
	s.once.Do(func() { s.loadErr = s.doLoad() })
	return s.loadErr
}

func (s *session) doLoad() error {
	if err := ensureRuntime(s.opts.ORTLib); err != nil {
		return err
	}
	tokPath := filepath.Join(s.opts.ModelDir, models.TokenizerFile)
	tokCache := filepath.Join(s.opts.ModelDir, cacheDir)
	if s.opts.NoCache {
		tokCache = ""
	}
	// The tokenizer loads beside the runtime session: they meet at the
	// vocabulary check, and the tokenizer's 14 ms (from its cache) is then
	// off a one-shot query's start-up (bench/RESULTS.md, "A one-shot
	// query's start-up"). Its error still comes first, as when it loaded
	// first.
	type loaded struct {
		err   error
		panic any // raised again in the caller, which may recover it
	}
	tokc := make(chan loaded, 1)
	var tok *Tokenizer
	go func() {
		var l loaded
		defer func() {
			l.panic = recover()
			tokc <- l
		}()
		tok, l.err = loadTokenizer(tokPath, s.opts.MaxTokens, tokCache)
	}()
	tokErr, tokDone := error(nil), false
	waitTok := func() error {
		if !tokDone {
			l := <-tokc
			if l.panic != nil {
				panic(l.panic)
			}
			tokErr, tokDone = l.err, true
		}
		return tokErr
	}
	defer waitTok() // no return leaves it running
	modelPath := filepath.Join(s.opts.ModelDir, models.ModelFile)
	key := ""
	if !s.opts.NoCache {
		_, version, _ := Loaded()
		key, _ = cacheKey(modelPath, version)
	}
	if key != "" {
		path := cachePath(s.opts.ModelDir, key)
		graph, gi, release, mapped, err := readCached(path, key)
		switch {
		case err == nil:
			sess, err := s.newSession(graph, gi, nil, modelPath, "", mapped)
			if terr := waitTok(); terr != nil {
				if err == nil {
					sess.Destroy()
				}
				release()
				return terr
			}
			if err == nil {
				if err = checkVocab(gi, tok, modelPath); err != nil {
					sess.Destroy()
				}
			}
			if err == nil {
				// With a mapped entry the runtime uses its weights in place:
				// the mapping lives as long as the session.
				s.tok, s.sess, s.cache, s.release = tok, sess, cacheHit, release
				return nil
			}
			release()
			os.Remove(path) // refused by the runtime: rebuilt below
		case !errors.Is(err, os.ErrNotExist):
			os.Remove(path) // damaged: rebuilt below
		}
	}
	if err := waitTok(); err != nil {
		return err
	}
	data, release, _, err := mapFile(modelPath)
	if err != nil {
		return fmt.Errorf("load %s: %w", modelPath, err)
	}
	defer release()
	gi, err := parseGraphInfo(data)
	if err != nil {
		return fmt.Errorf("load %s: %w", modelPath, err)
	}
	var pending *pendingCache
	if key != "" {
		pending = newPending(s.opts.ModelDir, key)
	}
	save := ""
	if pending != nil {
		save = pending.tmp
	}
	sess, err := s.newSession(data, gi, tok, modelPath, save, false)
	if err != nil {
		if pending != nil {
			pending.abandon()
		}
		return err
	}
	s.tok, s.sess, s.cache = tok, sess, cacheOff
	if pending != nil {
		if pending.commit(gi) == nil {
			s.cache = cacheWritten
		}
	}
	return nil
}

// Cache states of a loaded session, for tests and diagnostics.
const (
	cacheOff     = "off"     // not used (disabled, unwritable folder)
	cacheHit     = "hit"     // created from the optimized-model cache
	cacheWritten = "written" // created from the model; the cache now holds it
)

// checkVocab refuses a tokenizer whose vocabulary does not fit the
// model's token-embedding table (gi.VocabRows).
func checkVocab(gi *graphInfo, tok *Tokenizer, modelPath string) error {
	if rows := gi.VocabRows; rows > 0 {
		v := int64(tok.VocabSize())
		if v > rows || v < rows-128 {
			return fmt.Errorf("tokenizer %s has %d tokens but model %s embeds %d: they do not belong together",
				tok.Path(), v, modelPath, rows)
		}
	}
	return nil
}

// newSession checks the graph facts gi against the model's spec and the
// tokenizer (when tok is nil, the caller checks it later: checkVocab),
// then creates the runtime session from graph. When save is not empty,
// the runtime writes the graph it optimised there, in its own (ORT)
// format. inPlace says graph is such a file, mapped, which the runtime may
// read its weights from for the session's lifetime instead of copying
// them: a third less load time, and the pages are shared with every other
// process running the model.
func (s *session) newSession(graph []byte, gi *graphInfo, tok *Tokenizer, modelPath, save string, inPlace bool) (*ort.DynamicAdvancedSession, error) {
	if err := s.checkGraph(gi, modelPath); err != nil {
		return nil, err
	}
	if tok != nil {
		if err := checkVocab(gi, tok, modelPath); err != nil {
			return nil, err
		}
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", modelPath, err)
	}
	defer so.Destroy()
	if err := so.SetIntraOpNumThreads(s.opts.Threads); err != nil {
		return nil, fmt.Errorf("load %s: %w", modelPath, err)
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("load %s: %w", modelPath, err)
	}
	if err := so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll); err != nil {
		return nil, fmt.Errorf("load %s: %w", modelPath, err)
	}
	config := map[string]string{}
	if save != "" {
		if err := so.SetOptimizedModelFilePath(save); err != nil {
			return nil, fmt.Errorf("load %s: %w", modelPath, err)
		}
		config["session.save_model_format"] = "ORT"
	}
	if s.opts.NoSpin {
		config["session.intra_op.allow_spinning"] = "0"
	}
	if inPlace {
		config["session.use_ort_model_bytes_directly"] = "1"
		config["session.use_ort_model_bytes_for_initializers"] = "1"
	}
	for k, v := range config {
		if err := so.AddSessionConfigEntry(k, v); err != nil {
			return nil, fmt.Errorf("load %s: %w", modelPath, err)
		}
	}
	sess, err := ort.NewDynamicAdvancedSessionWithONNXData(graph, s.inputs, []string{s.output.Name}, so)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", modelPath, err)
	}
	return sess, nil
}

// checkGraph verifies the graph takes BERT-style inputs and has the output
// the model's spec needs, in the shape pooling expects.
func (s *session) checkGraph(gi *graphInfo, path string) error {
	spec := s.opts.Spec
	s.inputs = nil
	for _, in := range gi.Inputs {
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
			if in.ElemType != 7 {
				return fmt.Errorf("model %s: input %s is not int64 (ONNX type %d)", path, in.Name, in.ElemType)
			}
			s.inputs = append(s.inputs, in.Name)
		default:
			return fmt.Errorf("model %s: unexpected input %q (gno feeds input_ids, attention_mask, token_type_ids)", path, in.Name)
		}
	}
	for _, need := range []string{"input_ids", "attention_mask"} {
		if _, ok := gi.input(need); !ok {
			return fmt.Errorf("model %s: no %s input; inputs are %v", path, need, s.inputs)
		}
	}
	name := spec.Output
	if name == "" {
		for _, cand := range []string{"sentence_embedding", "last_hidden_state", "token_embeddings", "logits"} {
			if _, ok := gi.output(cand); ok {
				name = cand
				break
			}
		}
		if name == "" && len(gi.Outputs) == 1 {
			name = gi.Outputs[0].Name
		}
	}
	out, ok := gi.output(name)
	if !ok {
		return fmt.Errorf("model %s: no output %q; outputs are %v", path, name, gi.outputNames())
	}
	if out.ElemType != 1 {
		return fmt.Errorf("model %s: output %s is not float32 (ONNX type %d)", path, name, out.ElemType)
	}
	wantRank := 2
	if spec.Role == models.RoleEmbed && spec.Pooling != models.PoolNone {
		wantRank = 3
	}
	if len(out.Dims) != 0 && len(out.Dims) != wantRank {
		return fmt.Errorf("model %s: output %s has rank %d, want %d for %s pooling",
			path, name, len(out.Dims), wantRank, orNone(spec.Pooling))
	}
	if spec.Role == models.RoleEmbed && len(out.Dims) > 0 {
		if d := out.Dims[len(out.Dims)-1]; d > 0 && d != int64(spec.Dims) {
			return fmt.Errorf("model %s: output %s has dimension %d, registry says %d", path, name, d, spec.Dims)
		}
	}
	s.output = out
	return nil
}

func orNone(p models.Pooling) string {
	if p == "" {
		return "no"
	}
	return string(p)
}

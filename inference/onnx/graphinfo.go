package onnx

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// graphInfo is what gno needs to know about an ONNX graph before running it:
// its declared inputs and outputs, and the number of rows in its token
// embedding table, which must match the tokenizer's vocabulary.
type graphInfo struct {
	Inputs  []valueInfo
	Outputs []valueInfo
	// VocabRows is the first dimension of the word-embedding table, or 0
	// when the graph has none gno can recognise.
	VocabRows int64
}

// valueInfo is a declared graph input or output. Dims holds -1 for a
// symbolic (dynamic) dimension.
type valueInfo struct {
	Name     string
	ElemType int32 // ONNX TensorProto.DataType: 1 float, 7 int64
	Dims     []int64
}

func (g *graphInfo) input(name string) (valueInfo, bool) {
	for _, v := range g.Inputs {
		if v.Name == name {
			return v, true
		}
	}
	return valueInfo{}, false
}

func (g *graphInfo) output(name string) (valueInfo, bool) {
	for _, v := range g.Outputs {
		if v.Name == name {
			return v, true
		}
	}
	return valueInfo{}, false
}

func (g *graphInfo) outputNames() []string {
	names := make([]string, len(g.Outputs))
	for i, v := range g.Outputs {
		names[i] = v.Name
	}
	return names
}

// errNotONNX is returned for files that do not parse as an ONNX model.
var errNotONNX = errors.New("not an ONNX model")

// parseGraphInfo reads the parts of an ONNX ModelProto gno checks, straight
// from the protobuf wire format, skipping weight payloads without copying.
func parseGraphInfo(data []byte) (*graphInfo, error) {
	var graph []byte
	sawIR := false
	err := walk(data, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == 1 && typ == protowire.VarintType:
			sawIR = n > 0 && n < 1000
		case num == 7 && typ == protowire.BytesType:
			graph = v
		}
		return nil
	})
	if err != nil || !sawIR || graph == nil {
		return nil, errNotONNX
	}
	gi := &graphInfo{}
	inits := map[string][]int64{}
	var gathers [][]string // inputs of Gather nodes
	err = walk(graph, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1: // node
			op, ins, err := parseNode(v)
			if err != nil {
				return err
			}
			if op == "Gather" && len(ins) >= 2 {
				gathers = append(gathers, ins)
			}
		case 5: // initializer
			name, dims, err := parseTensorHeader(v)
			if err != nil {
				return err
			}
			inits[name] = dims
		case 11, 12: // input, output
			vi, err := parseValueInfo(v)
			if err != nil {
				return err
			}
			if num == 11 {
				gi.Inputs = append(gi.Inputs, vi)
			} else {
				gi.Outputs = append(gi.Outputs, vi)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotONNX, err)
	}
	// Old exporters list initializers among the inputs; they are not fed.
	real := gi.Inputs[:0]
	for _, in := range gi.Inputs {
		if _, isInit := inits[in.Name]; !isInit {
			real = append(real, in)
		}
	}
	gi.Inputs = real
	gi.VocabRows = vocabRows(inits, gathers)
	return gi, nil
}

// vocabRows finds the token embedding table: the data operand of the Gather
// fed by input_ids, or failing that an initializer named like BERT's
// word_embeddings (quantised exports rename it *_quantized).
func vocabRows(inits map[string][]int64, gathers [][]string) int64 {
	for _, g := range gathers {
		if g[1] == "input_ids" {
			if d, ok := inits[g[0]]; ok && len(d) == 2 {
				return d[0]
			}
		}
	}
	for name, d := range inits {
		if len(d) == 2 && strings.Contains(name, "word_embeddings") {
			return d[0]
		}
	}
	return 0
}

func parseNode(b []byte) (op string, inputs []string, err error) {
	err = walk(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			inputs = append(inputs, string(v))
		case 4:
			op = string(v)
		}
		return nil
	})
	return op, inputs, err
}

func parseTensorHeader(b []byte) (name string, dims []int64, err error) {
	err = walk(b, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
		switch {
		case num == 1 && typ == protowire.VarintType:
			dims = append(dims, int64(n))
		case num == 1 && typ == protowire.BytesType: // packed dims
			for len(v) > 0 {
				x, k := protowire.ConsumeVarint(v)
				if k < 0 {
					return protowire.ParseError(k)
				}
				dims = append(dims, int64(x))
				v = v[k:]
			}
		case num == 8 && typ == protowire.BytesType:
			name = string(v)
		}
		return nil
	})
	return name, dims, err
}

func parseValueInfo(b []byte) (valueInfo, error) {
	var vi valueInfo
	err := walk(b, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
		if typ != protowire.BytesType {
			return nil
		}
		switch num {
		case 1:
			vi.Name = string(v)
		case 2: // TypeProto
			return walk(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
				if num != 1 || typ != protowire.BytesType { // tensor_type
					return nil
				}
				return walk(v, func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error {
					switch {
					case num == 1 && typ == protowire.VarintType:
						vi.ElemType = int32(n)
					case num == 2 && typ == protowire.BytesType: // shape
						return walk(v, func(num protowire.Number, typ protowire.Type, v []byte, _ uint64) error {
							if num != 1 || typ != protowire.BytesType {
								return nil
							}
							d := int64(-1)
							err := walk(v, func(num protowire.Number, typ protowire.Type, _ []byte, n uint64) error {
								if num == 1 && typ == protowire.VarintType {
									d = int64(n)
								}
								return nil
							})
							vi.Dims = append(vi.Dims, d)
							return err
						})
					}
					return nil
				})
			})
		}
		return nil
	})
	return vi, err
}

// walk calls fn for every field of one protobuf message; v is set for
// length-delimited fields and n for varints.
func walk(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, n uint64) error) error {
	for len(b) > 0 {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return protowire.ParseError(k)
		}
		b = b[k:]
		var (
			v []byte
			n uint64
		)
		switch typ {
		case protowire.VarintType:
			n, k = protowire.ConsumeVarint(b)
		case protowire.BytesType:
			v, k = protowire.ConsumeBytes(b)
		default:
			k = protowire.ConsumeFieldValue(num, typ, b)
		}
		if k < 0 {
			return protowire.ParseError(k)
		}
		b = b[k:]
		if err := fn(num, typ, v, n); err != nil {
			return err
		}
	}
	return nil
}

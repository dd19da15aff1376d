package conversation

//go:generate go run ./internal/bpegen

import (
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
	"unsafe"

	"github.com/pkoukk/tiktoken-go"
)

// The BPE ranks of the encodings we count with, pre-parsed at build time
// (go generate runs internal/bpegen, and a test checks them against the
// offline loader's). Parsing the loader's base64 text took about 190 ms at
// every start; reading this form takes a fraction of that.
//
//go:embed bpe/*.bin
var bpeFiles embed.FS

// bpeLoader serves tiktoken-go the embedded ranks. It never downloads: an
// encoding that is not embedded is an error.
type bpeLoader struct{}

func (bpeLoader) LoadTiktokenBpe(file string) (map[string]int, error) {
	name := strings.TrimSuffix(path.Base(file), ".tiktoken")
	data, err := bpeFiles.ReadFile("bpe/" + name + ".bin")
	if err != nil {
		return nil, fmt.Errorf("tiktoken encoding %s is not built in", name)
	}
	return parseRanks(data)
}

// parseRanks reads the form bpegen writes. The keys point into data, which
// is embedded and never written, so no token is copied.
func parseRanks(data []byte) (map[string]int, error) {
	ranks := make(map[string]int, len(data)/8)
	rank := -1
	for len(data) > 0 {
		gap, n := binary.Uvarint(data)
		if n <= 0 || gap == 0 {
			return nil, errors.New("damaged BPE ranks")
		}
		data = data[n:]
		size, n := binary.Uvarint(data)
		if n <= 0 || uint64(len(data)-n) < size || size == 0 {
			return nil, errors.New("damaged BPE ranks")
		}
		data = data[n:]
		rank += int(gap)
		ranks[unsafe.String(&data[0], int(size))] = rank
		data = data[size:]
	}
	return ranks, nil
}

// encoders holds one encoder per encoding for the whole process: building
// one (the ranks, then tiktoken-go's decoder and sorted tokens) is the
// expensive part of counting, and every Counter of an encoding can share it.
var encoders sync.Map // encoding name → func() (*tiktoken.Tiktoken, error)

// encoder returns the process's encoder for an encoding, building it on
// first use.
func encoder(name string) (*tiktoken.Tiktoken, error) {
	f, _ := encoders.LoadOrStore(name, sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
		setLoader.Do(func() { tiktoken.SetBpeLoader(bpeLoader{}) })
		return tiktoken.GetEncoding(name)
	}))
	return f.(func() (*tiktoken.Tiktoken, error))()
}

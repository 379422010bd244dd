package web_test

import (
	"testing"

	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

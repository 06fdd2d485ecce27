import sys

from .freeze import main

sys.exit(main())

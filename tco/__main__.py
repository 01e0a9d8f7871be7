from tco.cli import main

raise SystemExit(main())

from dicebase.main import main

if __name__ == "__main__":  # not when a spawned worker process (Dask's) imports this module as __mp_main__
    main()
